import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A private session bus: the real `dbus-daemon --session` (Debian's dbus)
/// listening on `<runtime directory>/bus`, as a user manager's dbus.socket
/// does. Its environment decides where it looks for D-Bus service files
/// (`$XDG_DATA_HOME/dbus-1/services`) and what the programs it activates
/// get; their output lands in its own.
final class SessionBus: @unchecked Sendable {
    let address: String
    let process: RunningProcess
    /// `environment` plus this bus's address: for the daemon, and for its clients.
    let environment: [String: String]

    init(runtimeDirectory: String, environment: [String: String], directory: String) throws {
        address = "unix:path=\(runtimeDirectory)/bus"
        self.environment = environment.merging(["DBUS_SESSION_BUS_ADDRESS": address]) { _, bus in bus }
        process = try RunningProcess("/usr/bin/env", ["dbus-daemon", "--session", "--address=\(address)", "--nofork", "--print-address"],
                                     environment: self.environment, directory: directory, name: "dbus-daemon")
        let printed = process
        try printed.waitUntil("dbus-daemon prints its address", timeout: 20) { printed.standardOutput.contains("unix:path=") }
    }

    deinit { _ = process.stop(signal: SIGTERM) }

    /// The process that owns `name` on this bus, asked of the bus itself; nil when nobody does.
    func owner(of name: String, scratch: String) throws -> pid_t? {
        let answer = try ProcessResult.run("/usr/bin/env", ["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus",
                                                            "--object-path", "/org/freedesktop/DBus",
                                                            "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", name],
                                           standardInput: nil, environment: environment, scratch: scratch, timeout: 30)
        // "(uint32 1234,)"
        guard answer.status == 0, let number = answer.standardOutput.split(separator: " ").last?.filter(\.isNumber) else { return nil }
        return pid_t(number)
    }
}
