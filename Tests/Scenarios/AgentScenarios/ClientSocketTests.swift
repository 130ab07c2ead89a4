import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The `passkey` CLI against listeners that are not a working agent of its
/// own user: it must neither hang nor hand anything to a stranger.
@Suite(.ownThreads) struct ClientSocketTests {
    /// A listener that accepts and never answers: the CLI gives up with
    /// `timeout` (exit 5) and says so, instead of waiting for ever.
    @Test func anAgentThatNeverAnswersIsATimeout() throws {
        let harness = try AgentHarness()
        let path = harness.home + "/silent.sock"
        let listener = try Listener(path: path, backlog: 8)
        let acceptor = Thread { listener.acceptForever() }
        acceptor.start()
        defer { listener.stop() }
        let status = try harness.passkey(["status"], extraEnvironment: ["PASSKEY_AGENT_SOCK": path], timeout: 60)
        #expect(status.status == 5, "exit \(status.status): \(status.standardError)")
        #expect(status.standardError.contains("did not answer"), "\(status.standardError)")
    }

    /// A listener whose backlog is full (it never accepts): a blocking
    /// connect would wait for ever on AF_UNIX; the CLI gives up instead.
    @Test func aFullBacklogIsATimeoutNotAHang() throws {
        let harness = try AgentHarness()
        let path = harness.home + "/full.sock"
        let listener = try Listener(path: path, backlog: 0)
        var queued: [Int32] = []
        defer { queued.forEach { close($0) } }
        while queued.count < 100, let fd = try ConnectionBurstTests.connectNonBlocking(path) { queued.append(fd) }
        #expect(queued.count < 100, "the listener's backlog fills")
        let status = try harness.passkey(["status"], extraEnvironment: ["PASSKEY_AGENT_SOCK": path], timeout: 60)
        #expect(status.status == 5, "exit \(status.status): \(status.standardError)")
        #expect(status.standardError.contains("accepts no connections"), "\(status.standardError)")
        _ = listener
    }

    /// A listener run by another user at PASSKEY_AGENT_SOCK (it could ask for
    /// PINs): the CLI checks the peer's uid first and sends it nothing.
    @Test func aListenerOfAnotherUserGetsNotAByte() throws {
        let harness = try AgentHarness()
        let directory = harness.home + "/foreign"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(harness.home, 0o755)
        chmod(directory, 0o777)
        let script = """
        import os, socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(sys.argv[1])
        os.chmod(sys.argv[1], 0o777)
        s.listen(8)
        print("LISTENING", flush=True)
        s.settimeout(60)
        c, _ = s.accept()
        c.settimeout(5)
        data = b''
        try:
            while True:
                chunk = c.recv(4096)
                if not chunk: break
                data += chunk
        except socket.timeout:
            pass
        print("BYTES", len(data), flush=True)
        """
        try script.write(toFile: directory + "/listener.py", atomically: true, encoding: .utf8)
        chmod(directory + "/listener.py", 0o644)
        let path = directory + "/agent.sock"
        let stranger = try OtherUser.start(["python3", directory + "/listener.py", path], in: directory, name: "stranger")
        defer { stranger.stop(signal: SIGKILL) }
        try stranger.waitUntil("the stranger listens") { stranger.standardOutput.contains("LISTENING") }

        let status = try harness.passkey(["status"], extraEnvironment: ["PASSKEY_AGENT_SOCK": path], timeout: 60)
        #expect(status.status != 0)
        #expect(status.standardError.contains("uid 65534"), "\(status.standardError)")
        #expect(stranger.waitForExit(timeout: 30) == 0, "\(stranger.standardError)")
        #expect(stranger.standardOutput.contains("BYTES 0"), "the CLI wrote to another user's listener: \(stranger.standardOutput)")
    }
}

/// The CLI against the real agent when every connection slot is taken.
@Suite(.ownThreads) struct ClientRefusedTests {
    /// The agent's `too_many_connections` line (id null) reaches the person
    /// as what it is, not as "the agent closed the connection".
    @Test func theCLIReportsTooManyConnections() throws {
        let harness = try AgentHarness()
        try harness.start(arguments: ["--max-connections", String(ConnectionBurstTests.limit)])
        var held: [LineClient] = []
        for n in 0..<ConnectionBurstTests.limit {
            let client = try harness.connect()
            #expect(try client.call(n, "agent.status").result != nil)
            held.append(client)
        }
        let status = try harness.passkey(["status"], timeout: 60)
        #expect(status.status == 1, "exit \(status.status): \(status.standardError)")
        #expect(status.standardError.contains("already serves"), "\(status.standardError)")
        held.removeAll()
    }
}

/// A listening socket a test holds (and may never serve).
final class Listener: @unchecked Sendable {
    let fd: Int32

    init(path: String, backlog: Int32) throws {
        fd = try UnixSocketAddress.listen(at: path, backlog: backlog)
    }

    deinit { close(fd) }

    /// Accepts connections and keeps them open, unanswered, until `stop()`.
    func acceptForever() {
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 { if errno == EINTR { continue } else { return } }
            held.append(client)
        }
    }

    /// Wakes `acceptForever` (shutdown makes a blocked accept fail) and ends it.
    func stop() { shutdown(fd, Int32(SHUT_RDWR)) }
}

extension OtherUser {
    /// Starts a command as uid/gid 65534 in the background (needs root, as `run`).
    static func start(_ command: [String], in directory: String, name: String) throws -> RunningProcess {
        guard geteuid() == 0 else { throw HarnessError("this test runs a listener as another user with setpriv: run the tests as root") }
        return try RunningProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + command,
                                  environment: ["PATH": "/usr/bin:/bin"], directory: directory, name: name)
    }
}
