import AgentProtocol

#if canImport(Glibc)
import Glibc
#endif

/// A private pcscd with Debian's vpcd driver and a `passkey-vcard` (PIV and
/// FIDO2 over NFC) in its first reader, "Virtual PCD 00 00" — started as
/// the PC/SC tests start theirs (Harness/PCSCHarness.swift): pcscd 1.9
/// listens only where systemd hands it a socket, so the demo binds one in
/// its scratch directory, passes it as fd 3 with LISTEN_FDS, and points
/// libpcsclite at it with PCSCLITE_CSOCK_NAME. The system's pcscd is untouched.
final class DemoPCSC: @unchecked Sendable {
    static let driverPath = "/usr/lib/pcsc/drivers/serial/libifdvpcd.so"
    static let reader = "Virtual PCD 00 00"

    let socketPath: String
    private let daemon: DemoProcess
    private var card: DemoProcess?

    /// Why the card chapters cannot run here, or nil when pcscd and vpcd are installed.
    static func missing(environment: [String: String]) -> String? {
        if DemoFiles.installed("pcscd", environment: environment) == nil { return "pcscd is not installed" }
        if access(driverPath, R_OK) != 0 { return "the vpcd reader driver (\(driverPath)) is not installed" }
        if access("/run/pcscd", F_OK) != 0 { return "pcscd 1.9 needs the directory /run/pcscd (`sudo systemctl start pcscd.socket`)" }
        return nil
    }

    /// Starts pcscd and the card and waits until the card is in the reader.
    init(directory: String, environment: [String: String]) async throws(AgentError) {
        guard let pcscd = DemoFiles.installed("pcscd", environment: environment) else {
            throw AgentError(.pcscUnavailable, "pcscd is not installed")
        }
        try DemoFiles.directory(directory)
        try DemoFiles.directory(directory + "/reader.conf.d")
        socketPath = directory + "/pcscd.comm"
        let port = try Self.freePortPair()
        try DemoFiles.write("""
            FRIENDLYNAME "Virtual PCD"
            DEVICENAME   /dev/null:\(port)
            LIBPATH      \(Self.driverPath)
            CHANNELID    \(port)

            """, to: directory + "/reader.conf.d/vpcd")
        let listener = try Self.listen(at: socketPath)
        defer { close(listener) }
        var daemonEnvironment = environment
        for key in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"] { daemonEnvironment[key] = nil }
        // sh sets LISTEN_PID to its own pid, then execs pcscd, which keeps it.
        daemon = try DemoProcess("/bin/sh", ["-c", #"export LISTEN_FDS=1 LISTEN_PID=$$; exec "$0" "$@""#, pcscd,
                                             "--foreground", "--info", "--config", directory + "/reader.conf.d"],
                                 environment: daemonEnvironment, files: directory + "/pcscd", listeningSocket: listener)
        let daemon = self.daemon
        try await daemon.waitUntil("pcscd reports ready") {
            daemon.standardOutput.contains("daemon ready") || daemon.standardError.contains("daemon ready")
        }
        let card = try DemoProcess(try DemoFiles.sibling("passkey-vcard"),
                                   ["--host", "127.0.0.1", "--port", String(port), "--state", directory + "/vcard.json", "--verbose"],
                                   environment: environment.merging(["PCSCLITE_CSOCK_NAME": socketPath]) { _, new in new },
                                   files: directory + "/vcard")
        self.card = card
        try await card.waitUntil("passkey-vcard connects to vpcd") {
            (card.standardOutput + card.standardError).contains("connected to vpcd")
        }
    }

    /// What points libpcsclite (in the agent and `passkey`) at this pcscd.
    var environment: [String: String] { ["PCSCLITE_CSOCK_NAME": socketPath] }

    func stop() {
        card?.stop()
        daemon.stop()
    }

    private static func listen(at path: String) throws(AgentError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw AgentError(.internal, "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw AgentError(.internal, "the socket path \(path) is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
        guard bound, Glibc.listen(fd, 16) == 0 else {
            close(fd)
            throw AgentError(.internal, "cannot listen on \(path): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    /// Two consecutive free TCP ports (vpcd listens on the first for slot 00).
    private static func freePortPair() throws(AgentError) -> UInt16 {
        for _ in 0..<200 {
            let base = UInt16.random(in: 20000...60000)
            if isFree(base) && isFree(base + 1) { return base }
        }
        throw AgentError(.internal, "found no two consecutive free TCP ports for vpcd")
    }

    private static func isFree(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = INADDR_ANY
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
