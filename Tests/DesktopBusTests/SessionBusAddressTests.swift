import Harness
import Testing
import TestSupport
@testable import DesktopBus

#if canImport(Glibc)
import Glibc
#endif

/// Where the session bus is, read from the agent's environment as sd-bus
/// would find it, and nil when there is none (so an agent without a session
/// never tries to connect).
@Suite(.ownThreads) struct SessionBusAddressTests {
    /// A Unix socket bound at `path` (what a user manager's dbus.socket leaves in $XDG_RUNTIME_DIR/bus).
    static func bindSocket(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw HarnessError("path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { close(fd); throw HarnessError("bind \(path): errno \(errno)") }
        return fd
    }

    @Test("$DBUS_SESSION_BUS_ADDRESS wins, as given; empty or absurdly long, it is not an address")
    func theVariableWins() throws {
        let directory = try TemporaryDirectory.make(prefix: "session-bus-address")
        defer { TemporaryDirectory.remove(directory) }
        let socket = try Self.bindSocket(at: directory + "/bus")
        defer { close(socket) }
        #expect(SessionBusAddress.find(in: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x/bus,guid=1", "XDG_RUNTIME_DIR": directory])
            == "unix:path=/x/bus,guid=1")
        #expect(SessionBusAddress.find(in: ["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": directory]) == "unix:path=\(directory)/bus")
        let long = "unix:path=/" + String(repeating: "a", count: 4096)
        #expect(SessionBusAddress.find(in: ["DBUS_SESSION_BUS_ADDRESS": long]) == nil)
    }

    @Test("$XDG_RUNTIME_DIR/bus only when it is a socket and the directory is absolute; nothing at all is no bus")
    func theRuntimeDirectorysSocket() throws {
        let directory = try TemporaryDirectory.make(prefix: "session-bus-address")
        defer { TemporaryDirectory.remove(directory) }
        #expect(SessionBusAddress.find(in: [:]) == nil)
        #expect(SessionBusAddress.find(in: ["XDG_RUNTIME_DIR": directory]) == nil, "no bus socket there")
        try TextFile.write("not a socket", to: directory + "/bus")
        #expect(SessionBusAddress.find(in: ["XDG_RUNTIME_DIR": directory]) == nil, "a regular file named bus")
        unlink(directory + "/bus")
        let socket = try Self.bindSocket(at: directory + "/bus")
        defer { close(socket) }
        #expect(SessionBusAddress.find(in: ["XDG_RUNTIME_DIR": directory]) == "unix:path=" + SessionBusAddress.escape(directory + "/bus"))
        #expect(SessionBusAddress.find(in: ["XDG_RUNTIME_DIR": String(directory.dropFirst())]) == nil, "a relative directory")
    }

    @Test("a path with bytes outside D-Bus's optionally-escaped set is escaped as %XX")
    func escaping() throws {
        #expect(SessionBusAddress.escape("/run/user/1000/bus") == "/run/user/1000/bus")
        #expect(SessionBusAddress.escape("A-z_0.9*\\/") == "A-z_0.9*\\/")
        #expect(SessionBusAddress.escape("/tmp/my bus,guid=x;y%") == "/tmp/my%20bus%2cguid%3dx%3by%25")
        #expect(SessionBusAddress.escape("/tmp/é") == "/tmp/%c3%a9")
        // The escaped form is what sd-bus and dbus-daemon read back as the same path:
        // a real bus whose socket's directory has a space and a comma, found through $XDG_RUNTIME_DIR.
        let bus = try PrivateBus(prefix: "session bus, escaped")
        let address = try #require(SessionBusAddress.find(in: ["XDG_RUNTIME_DIR": bus.directory]))
        #expect(address.contains("%20") && address.contains("%2c"))
        let client = try BusClient(address: address)
        #expect(try client.owner(of: "org.freedesktop.DBus") == "org.freedesktop.DBus")
    }
}
