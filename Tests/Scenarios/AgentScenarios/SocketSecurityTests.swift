import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Who may reach the agent, and where its socket lives.
@Suite(.ownThreads) struct SocketSecurityTests {
    @Test func socketAndDirectoryAreOwnerOnly() throws {
        let harness = try AgentHarness()
        let agent = try harness.start()
        #expect(AgentHarness.mode(harness.runtimeDirectory + "/passkey-agent") == 0o700)
        #expect(AgentHarness.mode(harness.socketPath) == 0o600)
        #expect(agent.stop() == 0)
        #expect(AgentHarness.mode(harness.socketPath) == nil, "SIGTERM removes the socket")
    }

    /// Another uid gets no answer at all — even with the socket and its
    /// directories opened to everyone.
    @Test func anotherUserGetsNoAnswerEvenWithLooseModes() throws {
        let harness = try AgentHarness()
        let agent = try harness.start()
        for path in [harness.home, harness.runtimeDirectory, harness.runtimeDirectory + "/passkey-agent"] {
            chmod(path, 0o755)
        }
        chmod(harness.socketPath, 0o666)
        let script = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        s.settimeout(5)
        data = b''
        try:
            # The agent may close before, during or after this write.
            s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"agent.status"}\\n')
            while True:
                chunk = s.recv(4096)
                if not chunk: break
                data += chunk
        except socket.timeout:
            print("TIMEOUT")
        except (ConnectionResetError, BrokenPipeError):
            pass  # closed with our request unread: still not a byte of answer
        print("BYTES", len(data))
        """
        try script.write(toFile: harness.home + "/client.py", atomically: true, encoding: .utf8)
        chmod(harness.home + "/client.py", 0o644)
        let asNobody = try OtherUser.run(["python3", harness.home + "/client.py", harness.socketPath], in: harness.home)
        #expect(asNobody.status == 0, "\(asNobody.standardError)")
        #expect(asNobody.standardOutput.contains("BYTES 0"), "the agent answered another uid: \(asNobody.standardOutput)")
        #expect(!asNobody.standardOutput.contains("TIMEOUT"), "the connection should be closed, not left hanging")
        #expect(agent.standardError.contains("refused a connection from another user"))
        #expect(agent.standardError.contains("uid=65534") || agent.standardError.contains("uid: 65534") || agent.standardError.contains("65534"))
        // The owner is still served.
        let client = try harness.connect()
        #expect(try client.call(1, "agent.status").result?["version"] != nil)
    }

    @Test func noRuntimeDirectoryIsAClearError() throws {
        let harness = try AgentHarness()
        var environment = harness.environment
        environment["XDG_RUNTIME_DIR"] = nil
        let result = try ProcessResult.run(try ProgramPaths.built("passkey-agent"), ["--foreground"],
                                           standardInput: nil, environment: environment, scratch: harness.home, timeout: 20)
        #expect(result.status != 0)
        #expect(result.standardError.contains("XDG_RUNTIME_DIR"))
        #expect(result.standardError.contains("PASSKEY_AGENT_SOCK"))
    }

    @Test func staleSocketIsReplacedAndALiveOneIsNeverStolen() throws {
        let harness = try AgentHarness()
        // A stale socket file from a dead agent: bound, then the process "died".
        try FileManager.default.createDirectory(atPath: harness.runtimeDirectory + "/passkey-agent",
                                                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = try UnixSocketAddress.with(harness.socketPath) { bind(stale, $0, $1) }
        close(stale)
        #expect(AgentHarness.mode(harness.socketPath) != nil)

        let first = try harness.start()
        let client = try harness.connect()
        #expect(try client.call(1, "agent.status").result != nil)

        let second = try ProcessResult.run(try ProgramPaths.built("passkey-agent"), ["--foreground"],
                                           standardInput: nil, environment: harness.environment, scratch: harness.home, timeout: 20)
        #expect(second.status != 0)
        #expect(second.standardError.contains("already listening"))
        // The first agent still serves, on the same socket.
        #expect(try client.call(2, "agent.status").result != nil)
        #expect(try harness.connect().call(1, "agent.status").result != nil)
        first.stop()
    }
}

/// Where `--socket` may point: the agent creates a missing directory 0700,
/// uses an existing safe one as it is, and never changes the mode of a
/// directory it did not create, nor follows a symbolic link to one.
@Suite(.ownThreads) struct SocketDirectoryTests {
    /// Runs the agent with `--socket DIRECTORY/agent.sock`; the result once it listens (then stopped) or exits.
    static func start(in directory: String, harness: AgentHarness) throws -> (listened: Bool, standardError: String) {
        let socket = directory + "/agent.sock"
        let agent = try RunningProcess(try ProgramPaths.built("passkey-agent"), ["--foreground", "--socket", socket],
                                       environment: harness.environment, directory: harness.home,
                                       name: "agent-\(UUID().uuidString.prefix(8))")
        defer { agent.stop() }
        for _ in 0..<400 {
            if (try? LineClient(path: socket)) != nil { return (true, agent.standardError) }
            if agent.poll() != nil { return (false, agent.standardError) }
            usleep(50_000)
        }
        throw HarnessError("the agent neither listened nor exited: \(agent.standardError)")
    }

    @Test func aMissingDirectoryIsCreatedOwnerOnly() throws {
        let harness = try AgentHarness()
        let directory = harness.home + "/sockets"
        #expect(try Self.start(in: directory, harness: harness).listened)
        #expect(AgentHarness.mode(directory) == 0o700)
    }

    /// An existing directory of ours that others may read is used as it is.
    @Test func anExistingSafeDirectoryKeepsItsMode() throws {
        let harness = try AgentHarness()
        let directory = harness.home + "/shared"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        chmod(directory, 0o755)
        let outcome = try Self.start(in: directory, harness: harness)
        #expect(outcome.listened, "\(outcome.standardError)")
        #expect(AgentHarness.mode(directory) == 0o755, "the agent changed the mode of a directory it did not create")
        // Sticky and writable by all, like /tmp: others cannot replace our socket.
        chmod(directory, 0o1777)
        #expect(try Self.start(in: directory, harness: harness).listened)
        #expect(AgentHarness.mode(directory) == 0o1777)
    }

    @Test func aWritableDirectoryWithoutStickyIsRefusedUnchanged() throws {
        let harness = try AgentHarness()
        let directory = harness.home + "/open"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        chmod(directory, 0o777)
        let outcome = try Self.start(in: directory, harness: harness)
        #expect(!outcome.listened)
        #expect(outcome.standardError.contains("others may write to it"), "\(outcome.standardError)")
        #expect(AgentHarness.mode(directory) == 0o777)
    }

    /// A symbolic link is refused, and its target is left alone.
    @Test func aSymbolicLinkIsRefusedAndItsTargetUntouched() throws {
        let harness = try AgentHarness()
        let target = harness.home + "/target"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        chmod(target, 0o750)
        let link = harness.home + "/link"
        #expect(symlink(target, link) == 0)
        let outcome = try Self.start(in: link, harness: harness)
        #expect(!outcome.listened)
        #expect(outcome.standardError.contains("symbolic link"), "\(outcome.standardError)")
        #expect(AgentHarness.mode(target) == 0o750)
        #expect(AgentHarness.mode(target + "/agent.sock") == nil)
    }

    @Test func anotherUsersDirectoryIsRefused() throws {
        let harness = try AgentHarness()
        let directory = harness.home + "/theirs"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        chmod(directory, 0o755)
        #expect(chown(directory, 65534, 65534) == 0)
        let outcome = try Self.start(in: directory, harness: harness)
        #expect(!outcome.listened)
        #expect(outcome.standardError.contains("belongs to uid 65534"), "\(outcome.standardError)")
        #expect(AgentHarness.mode(directory) == 0o755)
    }
}

/// Runs a command as uid/gid 65534 (nobody) through setpriv. Needs root
/// (CI runs as root) or passwordless sudo; anything else fails the test
/// loudly rather than skipping it.
enum OtherUser {
    static func run(_ command: [String], in directory: String) throws -> ProcessResult {
        let setpriv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        let program: [String]
        if geteuid() == 0 {
            program = setpriv
        } else if (try? ProcessResult.run("/usr/bin/sudo", ["-n", "true"], standardInput: nil,
                                          environment: ProcessInfo.processInfo.environment, scratch: directory,
                                          timeout: 10).status) == 0 {
            program = ["sudo", "-n"] + setpriv
        } else {
            throw HarnessError("this test connects as another user with setpriv: run the tests as root or with passwordless sudo")
        }
        let path = program[0].hasPrefix("/") ? program[0] : "/usr/bin/" + program[0]
        return try ProcessResult.run(path, Array(program.dropFirst()), standardInput: nil,
                                     environment: ["PATH": "/usr/bin:/bin"], scratch: directory, timeout: 30)
    }
}
