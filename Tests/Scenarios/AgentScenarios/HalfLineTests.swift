import Foundation
import Testing
import TestSupport

/// A client that sends half a request line and then nothing (a hung script,
/// a slowloris) is told so and closed after the line deadline (10 s), so it
/// cannot hold a connection slot for ever; whole lines sent slowly are fine.
@Suite(.ownThreads) struct HalfLineTests {
    @Test func aLineThatNeverEndsIsClosedAfterTheDeadline() throws {
        let harness = try AgentHarness()
        try harness.start(arguments: ["--max-connections", "3"])
        let stuck = try harness.connect()
        try stuck.send("{\"jsonrpc\":\"2.0\",\"id\":1,")
        // While it waits, the other slot still serves.
        #expect(try harness.connect().call(1, "agent.status").result != nil)
        let reply = try #require(try stuck.readLine(timeout: 30))
        #expect(reply.contains("\"timeout\"") && reply.contains("did not end within 10 s"), "\(reply)")
        #expect(try stuck.readLine(timeout: 10) == nil, "the connection is closed after the answer")
        // The stuck slot is free again.
        let first = try harness.connect(), second = try harness.connect()
        #expect(try first.call(2, "agent.status").result != nil)
        #expect(try second.call(3, "agent.status").result != nil)
    }

    /// The agent serves every connection on one event loop, and answers
    /// `agent.status` on it at once: when a second connection's round trip
    /// ends, the loop has read whatever this one sent before it. So each
    /// piece reaches the agent on its own, with no sleep between them.
    static func roundTrip(_ other: LineClient, _ id: Int) throws {
        #expect(try other.call(id, "agent.status").result != nil)
    }

    @Test func aWholeLineSentInPiecesIsServed() throws {
        let harness = try AgentHarness()
        try harness.start()
        let client = try harness.connect(), other = try harness.connect()
        for (index, piece) in ["{\"jsonrpc\":", "\"2.0\",\"id\":7,", "\"method\":\"agent.status\"}\n"].enumerated() {
            try client.send(piece)
            try Self.roundTrip(other, 100 + index)
        }
        let reply = try #require(try client.readLine(timeout: 10))
        #expect(reply.contains("\"result\""), "\(reply)")
        // A second request on the same connection, after the first line ended, has its own deadline.
        try client.send("{\"jsonrpc\":\"2.0\",\"id\":8,")
        try Self.roundTrip(other, 200)
        try client.send("\"method\":\"agent.status\"}\n")
        #expect(try client.readLine(timeout: 10)?.contains("\"result\"") == true)
    }
}
