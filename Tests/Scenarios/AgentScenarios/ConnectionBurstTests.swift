import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Bursts of connections past the limit (`--max-connections 128` here; 1024 by default, docs/PROTOCOL.md): the extra
/// ones get one `too_many_connections` line and are closed at once, and every
/// slot comes back when its client leaves.
@Suite(.ownThreads) struct ConnectionBurstTests {
    static let limit = 128

    @Test func burstsPastTheLimitAreRefusedAndEverySlotComesBack() throws {
        let harness = try AgentHarness()
        let agent = try harness.start(arguments: ["--max-connections", String(Self.limit)])
        #expect(try harness.connect().call(1, "agent.status").result != nil)
        let baseline = try Self.settledDescriptorCount(pid: agent.pid, atMost: nil)

        for burst in 1...3 {
            // The limit's worth of clients, each served (so each holds a slot)...
            var held: [LineClient] = []
            for n in 0..<Self.limit {
                let client = try harness.connect()
                #expect(try client.call(n, "agent.status").result != nil, "burst \(burst), client \(n)")
                held.append(client)
            }
            // ...then 40 more: each is told why and closed, not left hanging.
            for n in 0..<40 {
                let extra = try harness.connect()
                let answer = try extra.readJSON()
                #expect(answer.errorKind == "too_many_connections", "burst \(burst), extra \(n): \(answer)")
                #expect(answer["id"] is NSNull)
                #expect(try extra.readLine() == nil, "the agent closes a refused connection")
            }
            held.removeAll()
            // Every slot is free again: the agent holds no more sockets than before.
            _ = try Self.settledDescriptorCount(pid: agent.pid, atMost: baseline)
        }
        // And the limit's worth of clients is served once more.
        var clients: [LineClient] = []
        for n in 0..<Self.limit {
            let client = try harness.connect()
            #expect(try client.call(n, "agent.status").result != nil, "after the bursts, client \(n)")
            clients.append(client)
        }
    }

    /// Connections that wait in the listen backlog while the agent is stopped
    /// (SIGSTOP) are all accepted when it continues: those within the limit
    /// are served, the rest refused and closed, and the agent serves afterwards.
    @Test func aFullBacklogDrainsWhenTheAgentContinues() throws {
        let harness = try AgentHarness()
        let agent = try harness.start(arguments: ["--max-connections", String(Self.limit)])
        #expect(try harness.connect().call(1, "agent.status").result != nil)
        let baseline = try Self.settledDescriptorCount(pid: agent.pid, atMost: nil)
        kill(agent.pid, SIGSTOP)
        var waiting: [Int32] = []
        defer { waiting.forEach { close($0) } }
        // Non-blocking connects: a full AF_UNIX backlog answers EAGAIN instead of blocking.
        while waiting.count < 1_000 {
            guard let fd = try Self.connectNonBlocking(harness.socketPath) else { break }
            waiting.append(fd)
        }
        kill(agent.pid, SIGCONT)
        #expect(waiting.count > 0 && waiting.count < 1_000, "the backlog is bounded: \(waiting.count) connections queued")
        var served = 0, refused = 0
        for fd in waiting {
            let line = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"agent.status\"}\n"
            _ = line.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            let reply = Self.readAll(fd)
            if reply.contains("too_many_connections") { refused += 1 }
            else if reply.contains("\"result\"") { served += 1 }
        }
        #expect(served + refused == waiting.count, "every queued connection is answered")
        waiting.forEach { close($0) }
        waiting.removeAll()
        _ = try Self.settledDescriptorCount(pid: agent.pid, atMost: baseline)
        #expect(try harness.connect().call(2, "agent.status").result != nil)
    }

    // MARK: Helpers

    /// The agent's open descriptors once they stop changing; with `atMost`,
    /// waits (up to a minute) for the count to fall to it or below.
    static func settledDescriptorCount(pid: pid_t, atMost limit: Int?) throws -> Int {
        var last = -1
        for _ in 0..<600 {
            let count = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
            if let limit, count <= limit { return count }
            if limit == nil, count == last { return count }
            last = count
            usleep(100_000)
        }
        throw HarnessError("the agent holds \(last) descriptors, more than \(limit.map(String.init) ?? "a steady number"): connections leaked")
    }

    /// A connected socket, or nil when the backlog is full (EAGAIN).
    static func connectNonBlocking(_ path: String) throws -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        let result = try UnixSocketAddress.with(path) { connect(fd, $0, $1) }
        if result == 0 { return fd }
        let code = errno
        close(fd)
        if code == EAGAIN { return nil }
        throw HarnessError("connect: \(String(cString: strerror(code)))")
    }

    /// Everything the peer sends until it closes or a status answer arrives (10 s at most).
    static func readAll(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { break }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 { break }
            if n > 0 {
                bytes.append(contentsOf: chunk[0..<n])
                if bytes.last == UInt8(ascii: "\n") && String(decoding: bytes, as: UTF8.self).contains("\"result\"") { break }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
