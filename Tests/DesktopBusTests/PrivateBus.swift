import CSystemd
@testable import DesktopBus
import Harness

#if canImport(Glibc)
import Glibc
#endif

/// A private session bus: the real `dbus-daemon --session` on a socket in a
/// temporary directory, for one test. It prints its address once it listens;
/// the test reads that line from a FIFO, so it waits for the event rather
/// than polling. No dbus-daemon, or one that exits without printing: the
/// initialiser throws, and the test fails.
final class PrivateBus {
    let directory: String
    let address: String
    private let daemon: ChildProcess

    /// `prefix` names the temporary directory the socket is in (spaces and commas welcome).
    init(prefix: String = "desktop-bus-test") throws {
        directory = try TemporaryDirectory.make(prefix: prefix)
        let fifo = directory + "/address"
        guard mkfifo(fifo, 0o600) == 0 else { throw HarnessError("mkfifo \(fifo): errno \(errno)") }
        // Open the reading end first, without waiting: the daemon's open of
        // the writing end (before it execs) then finds a reader.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard reader >= 0 else { throw HarnessError("open \(fifo): errno \(errno)") }
        defer { close(reader) }
        let listen = "unix:path=" + SessionBusAddress.escape(directory + "/bus")
        daemon = try ChildProcess.spawn("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address", "--address=\(listen)"],
                                        environment: ["PATH": "/usr/bin:/bin", "HOME": directory], standardOutput: fifo,
                                        standardError: directory + "/dbus-daemon.stderr")
        // Now a writer holds the FIFO: reads may block until the address comes.
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) & ~O_NONBLOCK)
        var printed: [UInt8] = []
        var byte: UInt8 = 0
        while !printed.contains(UInt8(ascii: "\n")) {
            let n = read(reader, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else {
                _ = daemon.terminate(signal: SIGKILL, grace: .seconds(5))
                throw HarnessError("dbus-daemon exited without printing its address: \(TextFile.read(directory + "/dbus-daemon.stderr"))")
            }
            printed.append(byte)
        }
        address = String(decoding: printed.dropLast(), as: UTF8.self)
        guard address.hasPrefix(listen) else { throw HarnessError("dbus-daemon printed \"\(address)\"") }
    }

    deinit {
        _ = daemon.terminate(signal: SIGTERM, grace: .seconds(10))
        TemporaryDirectory.remove(directory)
    }
}

/// A client of the bus through sd-bus, as a launcher (`gio open`) calls the
/// application: one connection, used from the test's thread only.
final class BusClient {
    struct Answer {
        /// The D-Bus error name, when the call failed.
        var error: String?
        var message: String?
        /// The single string the reply carried, if any.
        var string: String?
        /// The reply's signature ("" for an empty method return).
        var signature: String?
    }

    private let bus: OpaquePointer

    init(address: String) throws {
        var made: OpaquePointer?
        guard sd_bus_new(&made) >= 0, let bus = made else { throw HarnessError("sd_bus_new") }
        self.bus = bus
        sd_bus_set_bus_client(bus, 1)
        let configured = sd_bus_set_address(bus, address)
        let started = configured < 0 ? configured : sd_bus_start(bus)
        guard started >= 0 else { throw HarnessError("cannot connect to \(address): \(String(cString: strerror(-started)))") }
    }

    deinit { sd_bus_flush_close_unref(bus) }

    /// Calls `member` on `interface`; `append` writes the arguments.
    func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
              _ append: (OpaquePointer) -> Int32 = { _ in 0 }) throws -> Answer {
        var message: OpaquePointer?
        var result = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard result >= 0, let message else { throw HarnessError("new method call: \(String(cString: strerror(-result)))") }
        defer { sd_bus_message_unref(message) }
        result = append(message)
        guard result >= 0 else { throw HarnessError("appending the arguments: \(String(cString: strerror(-result)))") }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        result = sd_bus_call(bus, message, 30_000_000, &error, &reply)
        guard result >= 0, let reply else {
            return Answer(error: error.name.map { String(cString: $0) } ?? "errno \(-result)",
                          message: error.message.map { String(cString: $0) })
        }
        defer { sd_bus_message_unref(reply) }
        let signature = sd_bus_message_get_signature(reply, 1).map { String(cString: $0) }
        var text: UnsafePointer<CChar>?
        let string = signature == "s" && sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "s")), &text) > 0
            ? text.map { String(cString: $0) } : nil
        return Answer(signature: signature ?? "", string: string)
    }

    /// `org.freedesktop.Application.Open(as uris, a{sv} platform_data)` on the handler's object.
    func open(_ uris: [String], on name: String, path: String) throws -> Answer {
        try call(name, path, "org.freedesktop.Application", "Open") { message in
            var list = uris.map { strdup($0) } + [nil]
            defer { list.forEach { free($0) } }
            var result = sd_bus_message_append_strv(message, &list)
            guard result >= 0 else { return result }
            result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}")
            guard result >= 0 else { return result }
            return sd_bus_message_close_container(message)
        }
    }

    /// The unique name that owns `name` on the bus, or nil.
    func owner(of name: String) throws -> String? {
        let answer = try call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner") { message in
            name.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        }
        return answer.error == nil ? answer.string : nil
    }
}

extension BusClient.Answer {
    init(signature: String, string: String?) {
        self.init(error: nil, message: nil, string: string, signature: signature)
    }
}
