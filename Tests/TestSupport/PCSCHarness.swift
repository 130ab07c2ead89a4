import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private pcscd with Debian's vpcd reader driver, and `passkey-vcard`
/// cards in its readers, for tests that go through the real PC/SC stack.
///
/// Why it looks like this:
/// - pcsc-lite 1.9.9's daemon always binds /run/pcscd/pcscd.comm, which the
///   system's socket-activated pcscd owns; only socket activation lets it
///   listen elsewhere. So the harness binds its own Unix socket in a temporary
///   directory and hands it to pcscd as systemd would (fd 3, LISTEN_FDS=1,
///   LISTEN_PID), runs it in the foreground without --auto-exit, and points
///   libpcsclite at it with PCSCLITE_CSOCK_NAME (OpenSC, yubico-piv-tool and
///   `passkey` honour it too, through libpcsclite).
/// - libpcsclite reads PCSCLITE_CSOCK_NAME once per process, so there is one
///   harness per test process (`shared()`), and its socket path never changes;
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
public final class PCSCHarness: @unchecked Sendable {
    public static let readerFriendlyName = "Virtual PCD"
    public static let driverPath = "/usr/lib/pcsc/drivers/serial/libifdvpcd.so"

    /// The directory holding the socket, reader.conf, logs and card states; removed at exit.
    public let directory: String
    public let socketPath: String
    /// vpcd's port for slot 00; slot 01 is the next one.
    public let basePort: UInt16
    public let pcscdPath: String
    public var pcscdLogPath: String { directory + "/pcscd.log" }

    private let lock = NSLock()
    private var daemonPID: pid_t?
    private var cards: [VirtualCardProcess] = []

    private static let sharedLock = NSLock()
    nonisolated(unsafe) private static var sharedHarness: PCSCHarness?

    /// The process-wide harness: started on first use, stopped (daemon and
    /// cards killed, files removed) when the test process exits.
    public static func shared() throws -> PCSCHarness {
        sharedLock.lock()
        defer { sharedLock.unlock() }
        if let harness = sharedHarness { return harness }
        let harness = try PCSCHarness()
        sharedHarness = harness
        atexit {
            PCSCHarness.sharedHarness?.shutDown()
        }
        return harness
    }

    private init() throws {
        guard let pcscd = Self.findExecutable("pcscd", extraDirectories: ["/usr/sbin", "/sbin"]) else {
            throw HarnessError("pcscd is not installed: `sudo apt install pcscd` (the PC/SC tests run the real daemon)")
        }
        guard access(Self.driverPath, R_OK) == 0 else {
            throw HarnessError("the vpcd reader driver \(Self.driverPath) is missing: `sudo apt install vsmartcard-vpcd`")
        }
        pcscdPath = pcscd
        directory = try TemporaryDirectory.make(prefix: "passkey-pcsc")
        socketPath = directory + "/pcscd.comm"
        basePort = try Self.freePortPair()
        let readerConfiguration = """
            FRIENDLYNAME "\(Self.readerFriendlyName)"
            DEVICENAME   /dev/null:\(basePort)
            LIBPATH      \(Self.driverPath)
            CHANNELID    \(basePort)

            """
        do {
            try FileManager.default.createDirectory(atPath: directory + "/reader.conf.d", withIntermediateDirectories: true)
            try readerConfiguration.write(toFile: directory + "/reader.conf.d/vpcd", atomically: true, encoding: .utf8)
            setenv("PCSCLITE_CSOCK_NAME", socketPath, 1)
            try startDaemon()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// "Virtual PCD 00 00" for slot 0, "Virtual PCD 00 01" for slot 1.
    public func readerName(slot: Int) -> String { "\(Self.readerFriendlyName) 00 0\(slot)" }

    public func port(slot: Int) -> UInt16 { basePort + UInt16(slot) }

    /// The environment child processes need to reach this pcscd.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PCSCLITE_CSOCK_NAME"] = socketPath
        return environment
    }

    public var isDaemonRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return daemonPID != nil
    }

    // MARK: The daemon

    /// Starts pcscd on the harness's socket and waits until its readers are up.
    public func startDaemon() throws {
        lock.lock()
        defer { lock.unlock() }
        guard daemonPID == nil else { return }
        unlink(socketPath)
        let listener = try Self.listeningSocket(at: socketPath)
        defer { close(listener) }
        let log = open(pcscdLogPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard log >= 0 else { throw HarnessError("cannot create \(pcscdLogPath): \(String(cString: strerror(errno)))") }
        defer { close(log) }
        let logStart = (try? FileManager.default.attributesOfItem(atPath: pcscdLogPath)[.size] as? Int) ?? 0

        // sh sets LISTEN_PID to its own pid, then execs pcscd, which keeps the pid.
        let script = "export LISTEN_FDS=1 LISTEN_PID=$$; exec \"$0\" \"$@\""
        let arguments = ["/bin/sh", "-c", script, pcscdPath, "--foreground", "--info",
                         "--config", directory + "/reader.conf.d"]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, log, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)
        posix_spawn_file_actions_adddup2(&actions, listener, 3)
        var environment = self.environment
        environment.removeValue(forKey: "LISTEN_FDS")
        environment.removeValue(forKey: "LISTEN_PID")
        let pid = try Self.spawn(arguments, environment: environment, actions: &actions)
        daemonPID = pid

        // Ready when pcscd logs it; an early exit is a clear failure.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let logText = Self.tail(of: pcscdLogPath, from: logStart)
            if logText.contains("daemon ready") { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                daemonPID = nil
                var hint = ""
                if logText.contains("/run/pcscd") {
                    hint = " pcscd 1.9 needs the directory /run/pcscd: `sudo systemctl start pcscd.socket` "
                        + "(or `sudo install -d -m 0755 /run/pcscd`)."
                }
                throw HarnessError("pcscd exited during start-up.\(hint) Its log:\n\(logText)")
            }
            usleep(20_000)
        }
        throw HarnessError("pcscd did not report ready within 30 s; its log:\n\(Self.tail(of: pcscdLogPath, from: logStart))")
    }

    /// Stops pcscd (SIGTERM, then SIGKILL if it lingers). The socket file stays,
    /// with nobody listening, as after a crash or `systemctl stop pcscd`.
    public func stopDaemon() {
        lock.lock()
        defer { lock.unlock() }
        guard let pid = daemonPID else { return }
        Self.terminate(pid)
        daemonPID = nil
    }

    // MARK: Cards

    /// Starts `passkey-vcard` on `slot` (0 or 1) with a state file (a new one
    /// in the harness directory when nil) and waits until it is connected to vpcd.
    public func startCard(slot: Int, statePath: String? = nil, verbose: Bool = true) throws -> VirtualCardProcess {
        let executable = try Self.productPath("passkey-vcard")
        var state = statePath ?? ""
        if statePath == nil { state = try TemporaryDirectory.make(prefix: "vcard", in: directory) + "/vcard.json" }
        let card = try VirtualCardProcess(executable: executable, port: port(slot: slot), statePath: state,
                                          logPath: directory + "/vcard-\(slot)-\(UUID().uuidString.prefix(8)).log",
                                          environment: environment, verbose: verbose)
        lock.lock()
        cards.append(card)
        lock.unlock()
        try card.waitUntilConnected()
        return card
    }

    // MARK: Programs

    /// The path of a product built next to the test bundle (`passkey`, `passkey-vcard`).
    public static func productPath(_ name: String) throws -> String {
        let bundleBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        var directory = (bundleBinary as NSString).deletingLastPathComponent
        // On Linux the bundle is a single executable in the build directory;
        // be lenient about an .xctest directory layout too.
        for _ in 0..<3 {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
            directory = (directory as NSString).deletingLastPathComponent
        }
        throw HarnessError("\(name) is not built next to the test bundle: run `swift build --product \(name)` first")
    }

    /// Runs a program to completion with this pcscd in its environment; stdin
    /// (if given) is fed from a file, output is captured.
    public func run(_ executable: String, _ arguments: [String], standardInput: String? = nil,
                    extraEnvironment: [String: String] = [:], timeout: TimeInterval = 120) throws -> ProcessResult {
        var environment = self.environment
        for (key, value) in extraEnvironment { environment[key] = value }
        return try ProcessResult.run(executable, arguments, standardInput: standardInput, environment: environment,
                                     scratch: directory, timeout: timeout)
    }

    // MARK: Shutdown

    private func shutDown() {
        lock.lock()
        let running = cards
        cards = []
        lock.unlock()
        for card in running { card.stop() }
        stopDaemon()
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: POSIX helpers

    static func terminate(_ pid: pid_t) {
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        var status: Int32 = 0
        while Date() < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno == ECHILD) { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    static func spawn(_ arguments: [String], environment: [String: String],
                      actions: inout posix_spawn_file_actions_t) throws -> pid_t {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The test runner may block or ignore signals; children start with
        // the defaults, so SIGTERM stops pcscd and passkey-vcard promptly.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard rc == 0 else { throw HarnessError("cannot start \(arguments[0]): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// A Unix stream socket bound at `path` and listening, on an fd other than 0–3
    /// (so dup2 onto fd 3 always clears close-on-exec).
    static func listeningSocket(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket(): \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw HarnessError("socket path \(path) is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in pathBytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw HarnessError("cannot listen on \(path): \(reason)")
        }
        let moved = fcntl(fd, F_DUPFD_CLOEXEC, 10)
        close(fd)
        guard moved >= 0 else { throw HarnessError("fcntl(F_DUPFD_CLOEXEC): \(String(cString: strerror(errno)))") }
        return moved
    }

    /// Two consecutive free TCP ports (vpcd listens on port and port + 1).
    static func freePortPair() throws -> UInt16 {
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

    static func findExecutable(_ name: String, extraDirectories: [String]) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + extraDirectories {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    static func tail(of path: String, from offset: Int) -> String {
        guard let data = FileManager.default.contents(atPath: path), data.count >= offset else { return "" }
        return String(decoding: data[offset...], as: UTF8.self)
    }
}

/// A harness failure: what is missing and how to get it.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
