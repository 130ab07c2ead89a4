import Settings

#if canImport(Glibc)
import Glibc
#endif

/// A private pcscd with Debian's vpcd reader driver, and one `passkey-vcard`
/// in its first reader: the real PC/SC stack the vault's PIV slot goes
/// through, without touching the system's pcscd.
///
/// The same arrangement as the tests' harness (docs/SMARTCARD.md, "How the
/// tests run pcscd"), reduced to what the benchmark needs:
/// - pcsc-lite 1.9's daemon binds /run/pcscd/pcscd.comm unless it is socket
///   activated, so this binds its own Unix socket in a scratch directory and
///   hands it over as fd 3 with `LISTEN_FDS=1` and `LISTEN_PID` (set by a
///   `sh` that then execs pcscd, keeping its pid);
/// - its own reader.conf gives vpcd a free pair of TCP ports, so a system
///   pcscd with the vpcd driver does not collide;
/// - clients (the agent, `passkey`) find it through `PCSCLITE_CSOCK_NAME`.
final class PrivatePCSC {
    static let driverPath = "/usr/lib/pcsc/drivers/serial/libifdvpcd.so"
    /// vpcd's first reader, where the card is.
    static let readerName = "Virtual PCD 00 00"

    let scratch: ScratchDirectory
    let socketPath: String
    private var daemon: ChildProcess?
    private var card: ChildProcess?

    /// What clients need in their environment to reach this pcscd.
    var environment: [String: String] { ["PCSCLITE_CSOCK_NAME": socketPath] }

    /// Starts pcscd and the card, and returns once both are up; throws what
    /// is missing (pcscd, the vpcd driver, /run/pcscd) or what failed.
    init(virtualCard: String, programs: Programs) throws(BenchError) {
        let pcscd = try programs.required("pcscd")
        guard access(Self.driverPath, R_OK) == 0 else {
            throw .missingProgram(Self.driverPath, hint: "install the vpcd reader driver (apt-get install vsmartcard-vpcd)")
        }
        guard access(virtualCard, X_OK) == 0 else {
            throw .missingProgram(virtualCard, hint: "build it with `swift build -c release --product passkey-bench`")
        }
        // pcscd 1.9 exits at start-up without it (Debian's pcscd.socket makes it at boot).
        guard access("/run/pcscd", F_OK) == 0 else {
            throw .missingProgram("/run/pcscd", hint: "pcscd 1.9 needs this directory: `sudo systemctl start pcscd.socket` (or `sudo install -d -m 0755 /run/pcscd`)")
        }
        scratch = try ScratchDirectory(prefix: "passkey-bench-pcsc")
        socketPath = scratch.path + "/pcscd.comm"
        let port = try Self.freePortPair()
        _ = try scratch.directory("reader.conf.d")
        _ = try scratch.write("reader.conf.d/vpcd", """
            FRIENDLYNAME "Virtual PCD"
            DEVICENAME   /dev/null:\(port)
            LIBPATH      \(Self.driverPath)
            CHANNELID    \(port)

            """)

        var environment = ProcessEnvironment.current
        for key in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"] { environment[key] = nil }
        environment.merge(self.environment) { _, ours in ours }
        let listener = try Self.listeningSocket(at: socketPath)
        defer { close(listener) }
        let script = #"export LISTEN_FDS=1 LISTEN_PID=$$; exec "$0" "$@""#
        let daemon = try ChildProcess.spawn("/bin/sh", ["-c", script, pcscd, "--foreground", "--info",
                                                        "--config", scratch.path + "/reader.conf.d"],
                                            environment: environment, output: scratch.path + "/pcscd.log",
                                            listeningSocket: listener)
        self.daemon = daemon
        do throws(BenchError) {
            try waitForLog("pcscd.log", saying: "daemon ready", from: daemon, name: "pcscd")
            _ = try scratch.directory("card")
            let card = try ChildProcess.spawn(virtualCard, ["--host", "127.0.0.1", "--port", String(port),
                                                            "--state", scratch.path + "/card/vcard.json"],
                                              environment: environment, output: scratch.path + "/vcard.log")
            self.card = card
            try waitForLog("vcard.log", saying: "connected to vpcd", from: card, name: "passkey-vcard")
        } catch {
            stop()
            throw error
        }
    }

    /// Stops the card, then pcscd (SIGTERM each, and reaps them).
    func stop() {
        card?.stop()
        card = nil
        daemon?.stop()
        daemon = nil
    }

    deinit { stop() }

    /// Waits (at most 30 s) until `process` writes `text` to its log; its early exit is a failure with its log's end.
    private func waitForLog(_ log: String, saying text: String, from process: ChildProcess, name: String) throws(BenchError) {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while clock.now < deadline {
            if scratch.readText(log).contains(text) { return }
            if process.hasExited() {
                if process.pid == daemon?.pid { daemon = nil } else { card = nil }
                throw .daemonDidNotStart(name, log: scratch.readText(log))
            }
            usleep(20_000)
        }
        throw .daemonDidNotStart(name + " (no \"\(text)\" within 30 s)", log: scratch.readText(log))
    }

    /// A listening Unix socket at `path`, on an fd above 3 (so that dup2 onto 3 always happens).
    private static func listeningSocket(at path: String) throws(BenchError) -> Int32 {
        var address = try RawSocketClient.address(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .stepFailed("socket()", reason: String(cString: strerror(errno))) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .stepFailed("listening on \(path)", reason: reason)
        }
        let moved = fcntl(fd, F_DUPFD_CLOEXEC, 10)
        close(fd)
        guard moved >= 0 else { throw .stepFailed("fcntl(F_DUPFD_CLOEXEC)", reason: String(cString: strerror(errno))) }
        return moved
    }

    /// Two consecutive free TCP ports: vpcd listens on the first for reader 00 and the next for reader 01.
    private static func freePortPair() throws(BenchError) -> UInt16 {
        for _ in 0..<200 {
            let base = UInt16.random(in: 20000...60000)
            if isFree(base) && isFree(base + 1) { return base }
        }
        throw .stepFailed("choosing vpcd's ports", reason: "found no two consecutive free TCP ports")
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
