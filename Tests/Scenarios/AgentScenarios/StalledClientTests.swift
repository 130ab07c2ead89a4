import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A client that floods requests and never reads its answers.
@Suite(.ownThreads) struct StalledClientTests {
    /// The agent stops reading from such a client once its answers fill the
    /// write buffer, drops it after the stalled-write timeout, and meanwhile
    /// holds little for it: without the read stop, every request read adds an
    /// answer to the queue, tens of MB before the drop. Others are served.
    @Test func aFloodThatIsNeverReadIsDroppedWithBoundedMemory() async throws {
        let harness = try AgentHarness()
        let agent = try harness.start()
        #expect(try harness.connect().call(1, "agent.status").result != nil)
        let baseline = try #require(Self.memory(pid: agent.pid, "VmRSS"))

        let greedy = try harness.connect()
        let flood = Array(String(repeating: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"agent.status\"}\n", count: 2_000).utf8)
        let dropped = Flag()
        // Another thread writes: its send blocks once the agent stops reading.
        let writer = Thread {
            while (try? greedy.send(flood)) != nil {}
            dropped.set()
        }
        writer.start()
        let other = try harness.connect()
        var id = 0
        // Until the agent drops the flooder (a minute at most; it takes the 10 s stall timeout).
        for _ in 0..<600 where !dropped.isSet {
            id += 1
            #expect(try other.call(id, "agent.status", timeout: 10)["id"] as? Int == id)
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(dropped.isSet, "the agent drops a client that never reads")
        let peak = try #require(Self.memory(pid: agent.pid, "VmHWM"))
        #expect(peak - baseline < 32 << 20, "the agent grew by \((peak - baseline) >> 20) MiB for one client that never reads")
        #expect(try other.call(id + 1, "agent.status")["id"] as? Int == id + 1)
    }

    /// A field of /proc/PID/status in bytes (`VmRSS`: resident now; `VmHWM`: its peak).
    static func memory(pid: pid_t, _ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let kilobytes = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }
}

/// A flag one thread sets and another reads.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
