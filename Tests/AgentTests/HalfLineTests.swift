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

    @Test func aWholeLineSentInPiecesIsServed() throws {
        let harness = try AgentHarness()
        try harness.start()
        let client = try harness.connect()
        for piece in ["{\"jsonrpc\":", "\"2.0\",\"id\":7,", "\"method\":\"agent.status\"}\n"] {
            try client.send(piece)
            usleep(300_000)
        }
        let reply = try #require(try client.readLine(timeout: 10))
        #expect(reply.contains("\"result\""), "\(reply)")
        // A second request on the same connection, after the first line ended, has its own deadline.
        try client.send("{\"jsonrpc\":\"2.0\",\"id\":8,")
        usleep(300_000)
        try client.send("\"method\":\"agent.status\"}\n")
        #expect(try client.readLine(timeout: 10)?.contains("\"result\"") == true)
    }
}
