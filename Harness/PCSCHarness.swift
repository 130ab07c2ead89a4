import FoundationEssentials
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// A private pcscd with Debian's vpcd reader driver, and `passkey-vcard`
/// cards in its readers: the real PC/SC stack, for the tests and for
/// passkey-bench's PIV unlock, without touching the system's pcscd.
///
/// Why it looks like this (docs/SMARTCARD.md, "How the tests run pcscd"):
/// - pcsc-lite 1.9.9's daemon always binds /run/pcscd/pcscd.comm, which the
///   system's socket-activated pcscd owns; only socket activation lets it
///   listen elsewhere. So the harness binds its own Unix socket in a temporary
///   directory and hands it to pcscd as systemd would (fd 3, LISTEN_FDS=1,
///   LISTEN_PID), runs it in the foreground without --auto-exit, and points
///   libpcsclite at it with PCSCLITE_CSOCK_NAME (OpenSC, yubico-piv-tool,
///   `passkey` and the agent honour it too, through libpcsclite).
/// - libpcsclite reads PCSCLITE_CSOCK_NAME once per process, so a test
///   process has one harness (`shared()`), and its socket path never changes;
///   a restarted daemon gets a new socket at the same path.
/// - Its own reader.conf gives vpcd a free pair of TCP ports, so a system
///   pcscd with the vpcd driver (ports 35963/35964) does not collide. The
///   readers keep the friendly name "Virtual PCD": "Virtual PCD 00 00" and
///   "Virtual PCD 00 01".
/// - pcscd 1.9.9 needs /run/pcscd to exist (it creates it when run as root;
///   Debian's pcscd.socket creates it at boot). Without it pcscd exits and the
///   harness says so.
///
/// Tests that stop the daemon (`stopDaemon`) must not overlap with other PC/SC
/// tests: keep them in one `.serialized` suite.
public final class PCSCHarness: Sendable {
    public static let readerFriendlyName = "Virtual PCD"
    public static let driverPath = "/usr/lib/pcsc/drivers/serial/libifdvpcd.so"

    /// The directory holding the socket, reader.conf, logs and card states; removed by `stop()`.
    public let directory: String
    public let socketPath: String
    /// vpcd's port for slot 00; slot 01 is the next one.
    public let basePort: UInt16
    public let pcscdPath: String
    public var pcscdLogPath: String { directory + "/pcscd.log" }
    /// `passkey-vcard`; nil: the one built beside the running executable, found when a card starts.
    private let virtualCard: String?

    /// What runs: held while pcscd starts, so a second start waits for the first.
    private struct Running {
        var daemon: ChildProcess?
        var cards: [VirtualCardProcess] = []
    }
    private let running = Locked(Running())

    private static let sharedHarness = Locked<PCSCHarness?>(nil)

    /// The process-wide harness of a test process: started on first use, and
    /// libpcsclite in this process pointed at it; stopped (daemon and cards
    /// killed, files removed) when the process exits.
    public static func shared() throws(HarnessError) -> PCSCHarness {
        try sharedHarness.withLock { (shared) throws(HarnessError) -> PCSCHarness in
            if let shared { return shared }
            let harness = try PCSCHarness()
            setenv("PCSCLITE_CSOCK_NAME", harness.socketPath, 1)
            shared = harness
            atexit { PCSCHarness.sharedHarness.withLock { $0 }?.stop() }
            return harness
        }
    }

    /// Starts pcscd (no cards yet) and waits until its readers are up.
    public init(virtualCard: String? = nil) throws(HarnessError) {
        guard let pcscd = ProgramPaths.installed("pcscd") else {
            throw HarnessError("pcscd is not installed: `sudo apt install pcscd` (the PC/SC harness runs the real daemon)")
        }
        guard access(Self.driverPath, R_OK) == 0 else {
            throw HarnessError("the vpcd reader driver \(Self.driverPath) is missing: `sudo apt install vsmartcard-vpcd`")
        }
        pcscdPath = pcscd
        self.virtualCard = virtualCard
        directory = try TemporaryDirectory.make(prefix: "passkey-pcsc")
        socketPath = directory + "/pcscd.comm"
        do throws(HarnessError) {
            basePort = try Self.freePortPair()
            try TemporaryDirectory.directory(directory + "/reader.conf.d")
            try TextFile.write("""
                FRIENDLYNAME "\(Self.readerFriendlyName)"
                DEVICENAME   /dev/null:\(basePort)
                LIBPATH      \(Self.driverPath)
                CHANNELID    \(basePort)

                """, to: directory + "/reader.conf.d/vpcd")
            try startDaemon()
        } catch {
            TemporaryDirectory.remove(directory)
            throw error
        }
    }

    deinit { stop() }

    /// "Virtual PCD 00 00" for slot 0, "Virtual PCD 00 01" for slot 1.
    public func readerName(slot: Int) -> String { "\(Self.readerFriendlyName) 00 0\(slot)" }

    public func port(slot: Int) -> UInt16 { basePort + UInt16(slot) }

    /// The one variable that points libpcsclite (in the agent, `passkey`, OpenSC…) at this pcscd.
    public var socketEnvironment: [String: String] { ["PCSCLITE_CSOCK_NAME": socketPath] }

    /// This process's environment with `socketEnvironment`: what child processes run with.
    public var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(socketEnvironment) { _, ours in ours }
    }

    public var isDaemonRunning: Bool { running.withLock { $0.daemon != nil } }

    // MARK: The daemon

    /// Starts pcscd on the harness's socket and waits until its readers are up.
    public func startDaemon() throws(HarnessError) {
        try running.withLock { (running) throws(HarnessError) in
            guard running.daemon == nil else { return }
            unlink(socketPath)
            let listener = try UnixSocketAddress.listen(at: socketPath)
            defer { close(listener) }
            let logStart = TextFile.size(pcscdLogPath)
            // sh sets LISTEN_PID to its own pid, then execs pcscd, which keeps the pid.
            var environment = self.environment
            for key in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"] { environment[key] = nil }
            let started = try ChildProcess.spawn("/bin/sh", ["-c", #"export LISTEN_FDS=1 LISTEN_PID=$$; exec "$0" "$@""#, pcscdPath,
                                                             "--foreground", "--info", "--config", directory + "/reader.conf.d"],
                                                 environment: environment, standardOutput: pcscdLogPath, appending: true,
                                                 listeningSocket: listener)
            running.daemon = started

            // Ready when pcscd logs it; an early exit is a clear failure.
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let logText = TextFile.tail(of: pcscdLogPath, from: logStart)
                if logText.contains("daemon ready") { return }
                if started.reap() != nil {
                    running.daemon = nil
                    var hint = ""
                    if logText.contains("/run/pcscd") {
                        hint = " pcscd 1.9 needs the directory /run/pcscd: `sudo systemctl start pcscd.socket` "
                            + "(or `sudo install -d -m 0755 /run/pcscd`)."
                    }
                    throw HarnessError("pcscd exited during start-up.\(hint) Its log:\n\(logText)")
                }
                usleep(20_000)
            }
            throw HarnessError("pcscd did not report ready within 30 s; its log:\n\(TextFile.tail(of: pcscdLogPath, from: logStart))")
        }
    }

    /// Stops pcscd (SIGTERM, then SIGKILL if it lingers). The socket file stays,
    /// with nobody listening, as after a crash or `systemctl stop pcscd`.
    public func stopDaemon() {
        running.withLock { running in
            running.daemon?.terminate()
            running.daemon = nil
        }
    }

    // MARK: Cards

    /// Starts `passkey-vcard` on `slot` (0 or 1) with a state file (a new one
    /// in the harness directory when nil) and waits until it is connected to vpcd.
    /// `options` go to the card as they are, e.g. `["--applets", "fido2", "--presence", "deny"]`;
    /// without them the card has its default applets, PIV and FIDO2.
    public func startCard(slot: Int, statePath: String? = nil, verbose: Bool = true,
                          options: [String] = []) throws(HarnessError) -> VirtualCardProcess {
        var executable = virtualCard ?? ""
        if virtualCard == nil { executable = try ProgramPaths.built("passkey-vcard") }
        var state = statePath ?? ""
        if statePath == nil { state = try TemporaryDirectory.make(prefix: "vcard", in: directory) + "/vcard.json" }
        let card = try VirtualCardProcess(executable: executable, port: port(slot: slot), statePath: state,
                                          logPath: directory + "/vcard-\(slot)-\(UInt32.random(in: .min ... .max)).log",
                                          environment: environment, verbose: verbose, options: options)
        running.withLock { $0.cards.append(card) }
        try card.waitUntilConnected()
        return card
    }

    // MARK: Programs

    /// Runs a program to completion with this pcscd in its environment; stdin
    /// (if given) is fed from a file, output is captured.
    public func run(_ executable: String, _ arguments: [String], standardInput: String? = nil,
                    extraEnvironment: [String: String] = [:], timeout: TimeInterval = 120) throws(HarnessError) -> ProcessResult {
        try ProcessResult.run(executable, arguments, standardInput: standardInput,
                              environment: environment.merging(extraEnvironment) { _, extra in extra },
                              scratch: directory, timeout: timeout)
    }

    // MARK: Shutdown

    /// Stops the cards, then pcscd, and removes the directory.
    public func stop() {
        let cards = running.withLock { running in
            defer { running.cards = [] }
            return running.cards
        }
        for card in cards { card.stop() }
        stopDaemon()
        TemporaryDirectory.remove(directory)
    }

    /// Two consecutive free TCP ports (vpcd listens on port and port + 1).
    private static func freePortPair() throws(HarnessError) -> UInt16 {
        for _ in 0..<200 {
            let base = UInt16.random(in: 20000...60000)
            if isFree(base) && isFree(base + 1) { return base }
        }
        throw HarnessError("found no two consecutive free TCP ports for vpcd")
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
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
