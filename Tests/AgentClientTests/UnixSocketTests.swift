import AgentProtocol
import Foundation
import Harness
import Testing
import TestSupport
@testable import AgentClient
#if canImport(Glibc)
import Glibc
#endif

/// The client's socket: what counts as "no agent here" (the CLI then runs
/// in-process), a listener that does not accept in time, and reading lines
/// under a deadline. A listener of another uid cannot be made without root;
/// the uid check is seen passing for our own listener.
@Suite(.ownThreads) struct UnixSocketTests {
    /// A listening socket of ours at `path`, and the peer of each connection once accepted.
    final class Listener {
        let fd: Int32
        let path: String

        init(path: String, backlog: Int32 = 16) throws {
            self.path = path
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let bound = try UnixSocketAddress.with(path) { [fd] in bind(fd, $0, $1) }
            guard fd >= 0, bound == 0, listen(fd, backlog) == 0 else { throw TestFailure("cannot listen on \(path): \(errno)") }
        }

        deinit { close(fd) }

        /// The next connection, already made by the client (so this does not wait).
        func accept() throws -> Int32 {
            let peer = Glibc.accept(fd, nil, nil)
            guard peer >= 0 else { throw TestFailure("accept: \(errno)") }
            return peer
        }
    }

    static func withDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let directory = try TemporaryDirectory.make(prefix: "unix-socket-test")
        defer { TemporaryDirectory.remove(directory) }
        return try body(directory)
    }

    static func failure(_ path: String, timeout: Duration = .seconds(5)) -> UnixSocket.ConnectFailure? {
        do { _ = try UnixSocket.connect(path: path, timeout: timeout) } catch { return error }
        return nil
    }

    static func isNoAgent(_ failure: UnixSocket.ConnectFailure?) -> Bool {
        if case .noAgent? = failure { return true }
        return false
    }

    @Test("no agent: a missing path, a missing directory, a regular file, a directory, a socket nobody listens on, a path too long for sun_path")
    func noAgent() throws {
        try Self.withDirectory { directory in
            let file = directory + "/file"
            try "not a socket".write(toFile: file, atomically: true, encoding: .utf8)
            let stale = directory + "/stale.sock"
            do { _ = try Listener(path: stale) }  // bound, then closed: the file stays, nobody listens
            #expect(FileManager.default.fileExists(atPath: stale))
            let paths = [directory + "/missing.sock", directory + "/missing/agent.sock", file, file + "/agent.sock", directory, stale,
                         directory + "/" + String(repeating: "x", count: 120) + ".sock"]
            for path in paths {
                #expect(Self.isNoAgent(Self.failure(path)), "\(path): \(String(describing: Self.failure(path)))")
                // AgentConnection says "no agent" as nil: the CLI then runs the verb in-process.
                #expect(try AgentConnection.connect(path: path) == nil, "\(path)")
            }
        }
    }

    @Test("a listener of our own uid is accepted; the connection's first bytes are ours to send")
    func ownListener() throws {
        try Self.withDirectory { directory in
            let listener = try Listener(path: directory + "/agent.sock")
            let socket = try UnixSocket.connect(path: listener.path, timeout: .seconds(5))
            let peer = try listener.accept()
            defer { close(peer) }
            #expect(socket.write(Array("hello\n".utf8), deadline: .now + .seconds(5)))
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = recv(peer, &bytes, bytes.count, 0)
            #expect(Array(bytes.prefix(max(0, count))) == Array("hello\n".utf8))
        }
    }

    @Test("a listener whose backlog is full and that never accepts: timedOut once the connect deadline passes (here at once)")
    func fullBacklog() throws {
        try Self.withDirectory { directory in
            let listener = try Listener(path: directory + "/agent.sock", backlog: 0)
            var held: [UnixSocket] = []
            var failure: UnixSocket.ConnectFailure?
            for _ in 0..<8 {
                do throws(UnixSocket.ConnectFailure) { held.append(try UnixSocket.connect(path: listener.path, timeout: .zero)) } catch {
                    failure = error
                    break
                }
            }
            guard case .timedOut? = failure else {
                Issue.record("expected timedOut once the backlog was full, got \(String(describing: failure)) after \(held.count) connections")
                return
            }
            #expect(!held.isEmpty, "the backlog held at least one")
        }
    }

    @Test("readLine: several lines in one read, a line in pieces, none past the deadline, closed at end of stream or past the limit")
    func readLines() throws {
        try Self.withDirectory { directory in
            let listener = try Listener(path: directory + "/agent.sock")
            let socket = try UnixSocket.connect(path: listener.path, timeout: .seconds(5))
            let peer = try listener.accept()
            func send(_ text: String) { _ = text.withCString { Glibc.send(peer, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }
            let soon = ContinuousClock.now + .seconds(10)

            // Nothing sent yet: a deadline already passed is timedOut at once.
            #expect(throws: UnixSocket.ReadFailure.timedOut) { try socket.readLine(deadline: .now) }

            send("one\ntwo\nthr")
            #expect(try socket.readLine(deadline: soon) == Array("one".utf8))
            #expect(try socket.readLine(deadline: soon) == Array("two".utf8))
            #expect(throws: UnixSocket.ReadFailure.timedOut) { try socket.readLine(deadline: .now) }
            send("ee\n")
            #expect(try socket.readLine(deadline: soon) == Array("three".utf8), "the piece kept from before is the line's start")

            // More than the limit without a newline: the agent is not speaking the protocol.
            send(String(repeating: "x", count: 64))
            #expect(throws: UnixSocket.ReadFailure.closed) { try socket.readLine(deadline: soon, limit: 16) }

            close(peer)
            #expect(throws: UnixSocket.ReadFailure.closed) { try socket.readLine(deadline: soon) }
            #expect(!socket.write(Array("late\n".utf8), deadline: soon), "writing to a closed peer fails instead of raising SIGPIPE")
        }
    }
}

extension UnixSocket.ReadFailure: Equatable {}
