import AgentProtocol
import Foundation
import NIOCore
import NIOEmbedded
import Testing
import TestSupport
@testable import AgentServer

/// The connection pipeline's handlers one at a time on an `EmbeddedChannel`,
/// the way swift-nio tests its own: bytes in, lines and answers out, the line
/// deadline driven by the embedded loop's virtual clock (no real waiting).
/// AgentScenarios' HalfLineTests and ProtocolTests check the same rules
/// against the real program.
@Suite(.ownThreads) struct LineFrameDecoderTests {
    static func decoder(maxLength: Int = AgentServer.Limits().maxLineBytes) -> EmbeddedChannel {
        EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLength: maxLength)))
    }

    @Test("lines are cut at each newline, one trailing \\r dropped, an empty line passed on empty, a line in pieces passed on whole")
    func cutsLines() throws {
        let channel = Self.decoder()
        try channel.writeInbound(buffer("one\ntwo\r\n\nthr"))
        #expect(try channel.passedOn() == ["one", "two", ""])
        try channel.writeInbound(buffer("ee\r"))
        #expect(try channel.passedOn().isEmpty, "no newline yet: nothing passed on")
        try channel.writeInbound(buffer("\nfour\r\r\n"))
        #expect(try channel.passedOn() == ["three", "four\r"], "only one \\r is the line ending's")
        _ = try channel.finish()
    }

    @Test("a last line without its newline still counts when the client closes")
    func lastLineAtClose() throws {
        let channel = Self.decoder()
        try channel.writeInbound(buffer("{\"id\":1}\n{\"id\":2}"))
        #expect(try channel.passedOn() == [#"{"id":1}"#])
        channel.pipeline.fireChannelInactive()
        #expect(try channel.passedOn() == [#"{"id":2}"#])
    }

    @Test("the agent's limit is 1 MiB: a line of exactly 1 MiB (\\r\\n not counted) passes, one byte more is LineTooLong")
    func oneMebibyte() throws {
        let limit = AgentServer.Limits().maxLineBytes
        #expect(limit == 1 << 20)
        let channel = Self.decoder()
        let fits = [UInt8](repeating: UInt8(ascii: "a"), count: limit)
        try channel.writeInbound(buffer(fits + Array("\r\n".utf8)))
        #expect(try channel.passedOn().map(\.utf8.count) == [limit])

        let refused = Self.decoder()
        #expect(throws: LineFramer.LineTooLong.self) {
            try refused.writeInbound(buffer([UInt8](repeating: UInt8(ascii: "a"), count: limit + 1) + [UInt8(ascii: "\n")]))
        }
    }

    @Test("a line past the limit is refused before its newline arrives: the agent never buffers more than the limit")
    func refusedBeforeTheNewline() throws {
        let channel = Self.decoder(maxLength: 8)
        try channel.writeInbound(buffer("12345678"))
        try channel.writeInbound(buffer("\r"))  // could still be the line ending of a line at the limit
        #expect(try channel.passedOn().isEmpty)
        #expect(throws: LineFramer.LineTooLong.self) { try channel.writeInbound(buffer("9")) }

        let short = Self.decoder(maxLength: 8)
        #expect(throws: LineFramer.LineTooLong.self) { try short.writeInbound(buffer("123456789")) }
    }

    @Test("lines before an over-long one in the same read are passed on first")
    func linesBeforeTheLongOne() throws {
        let channel = Self.decoder(maxLength: 4)
        #expect(throws: LineFramer.LineTooLong.self) { try channel.writeInbound(buffer("ok\nfine\ntoo long\n")) }
        #expect(try channel.passedOn() == ["ok", "fine"])
    }
}

@Suite(.ownThreads) struct LineDeadlineHandlerTests {
    static func channel(timeout: Duration = AgentServer.Limits().lineTimeout) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: LineDeadlineHandler(lineTimeout: timeout))
        try channel.activate()
        return channel
    }

    /// The one line a client whose line did not end in time gets.
    static func expectTimeoutLine(_ channel: EmbeddedChannel) throws {
        let lines = try channel.writtenLines()
        #expect(lines.count == 1, "\(lines)")
        let answer = try json(try #require(lines.first))
        #expect(answer.errorKind == "timeout" && answer.errorCode == 1010, "\(answer)")
        #expect(answer["id"] is NSNull, "the error is about the connection, not a request")
        #expect(answer["jsonrpc"] as? String == "2.0")
    }

    @Test("half a line and then nothing: at 10 s after its first byte one timeout line (id null), then the connection closes")
    func halfALineTimesOut() throws {
        #expect(AgentServer.Limits().lineTimeout == .seconds(10))
        let channel = try Self.channel()
        try channel.writeInbound(buffer(#"{"jsonrpc":"2.0","id":1,"#))
        #expect(try channel.passedOn() == [#"{"jsonrpc":"2.0","id":1,"#], "the bytes go on to the decoder meanwhile")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(9_999))
        #expect(channel.isActive)
        #expect(try channel.writtenLines().isEmpty)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        try Self.expectTimeoutLine(channel)
        #expect(!channel.isActive)
    }

    @Test("the deadline runs from the line's first byte: more bytes without a newline do not move it")
    func trickleDoesNotExtend() throws {
        let channel = try Self.channel()
        try channel.writeInbound(buffer("{"))
        for _ in 0..<9 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            try channel.writeInbound(buffer("\"a\":1,"))
        }
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        try Self.expectTimeoutLine(channel)
        #expect(!channel.isActive)
    }

    @Test("a line that ends in time cancels its deadline; the next line gets a deadline of its own from its own first byte")
    func endedLinesCancel() throws {
        let channel = try Self.channel()
        try channel.writeInbound(buffer("{\"id\":"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        try channel.writeInbound(buffer("1}\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)
        #expect(try channel.writtenLines().isEmpty)

        // Whole lines, however many, never start a deadline.
        try channel.writeInbound(buffer("{}\n{}\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(60))
        #expect(channel.isActive)

        // A read that ends a line and starts the next one: the new partial line is timed.
        try channel.writeInbound(buffer("{}\n{\"id\":2"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        try Self.expectTimeoutLine(channel)
        #expect(!channel.isActive)
    }

    @Test("a connection that closes cancels its deadline: nothing is written to it later")
    func closeCancels() throws {
        let channel = try Self.channel()
        try channel.writeInbound(buffer("{"))
        try channel.close().wait()
        channel.embeddedEventLoop.advanceTime(by: .seconds(30))
        #expect(try channel.writtenLines().isEmpty)
    }

    @Test("--line-timeout N is N seconds; a limit too long to count never fires and does not trap")
    func otherTimeouts() throws {
        let short = try Self.channel(timeout: .seconds(3))
        try short.writeInbound(buffer("{"))
        short.embeddedEventLoop.advanceTime(by: .milliseconds(2_999))
        #expect(short.isActive)
        short.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!short.isActive)

        let endless = try Self.channel(timeout: .seconds(Int64.max))
        try endless.writeInbound(buffer("{"))
        endless.embeddedEventLoop.advanceTime(by: .hours(24 * 365 * 100))
        #expect(endless.isActive)
    }

    @Test("a limit with a fraction of a second is kept whole, not cut to its seconds (half a second is not zero)")
    func fractionalTimeout() throws {
        let channel = try Self.channel(timeout: .milliseconds(1_500))
        try channel.writeInbound(buffer("{"))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1_000))
        #expect(channel.isActive, "1.5 s had not passed")
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(500))
        #expect(!channel.isActive)

        let half = try Self.channel(timeout: .milliseconds(500))
        try half.writeInbound(buffer("{"))
        #expect(half.isActive, "a half-second limit does not fire at once")
        half.embeddedEventLoop.advanceTime(by: .milliseconds(500))
        #expect(!half.isActive)
    }
}

@Suite(.ownThreads) struct RefusalHandlerTests {
    @Test("a connection past the limit gets one too_many_connections line (id null) once active, and is closed; what it sends is dropped")
    func refusesOnceActive() throws {
        let error = AgentError(.tooManyConnections, "the agent already serves 2 connections; try again later")
        let channel = EmbeddedChannel(handler: RefusalHandler(error: error))
        #expect(try channel.writtenLines().isEmpty, "nothing is written before the channel is active")
        try channel.activate()
        let lines = try channel.writtenLines()
        #expect(lines.count == 1, "\(lines)")
        let answer = try json(try #require(lines.first))
        #expect(answer.errorKind == "too_many_connections" && answer.errorCode == 1031, "\(answer)")
        #expect((answer["error"] as? [String: Any])?["message"] as? String == error.message)
        #expect(answer["id"] is NSNull)
        #expect(!channel.isActive)
    }

    @Test("request lines a refused client sends are never passed on")
    func dropsInput() throws {
        let channel = EmbeddedChannel(handler: RefusalHandler(error: AgentError(.tooManyConnections, "full")))
        try channel.writeInbound(buffer(#"{"jsonrpc":"2.0","id":1,"method":"agent.status"}"# + "\n"))
        #expect(try channel.passedOn().isEmpty)
        #expect(try channel.writtenLines().isEmpty)
    }
}

@Suite(.ownThreads) struct RequestDeadlineTests {
    @Test("the timer fires at the limit on the connection's loop; end() then says it fired")
    func firesAtTheLimit() {
        let loop = EmbeddedEventLoop()
        let expired = Counter()
        let deadline = RequestDeadline(limit: .seconds(300), on: loop) { expired.add() }
        loop.advanceTime(by: .seconds(299))
        #expect(expired.value == 0)
        loop.advanceTime(by: .seconds(1))
        #expect(expired.value == 1)
        #expect(deadline.end(), "the answer is timeout whatever the request returned")
        #expect(deadline.end(), "and stays so")
    }

    @Test("a request that answers first cancels the timer: it never fires, and end() says it did not")
    func endCancels() {
        let loop = EmbeddedEventLoop()
        let expired = Counter()
        let deadline = RequestDeadline(limit: .seconds(300), on: loop) { expired.add() }
        loop.advanceTime(by: .seconds(299))
        #expect(!deadline.end())
        loop.advanceTime(by: .seconds(3600))
        #expect(expired.value == 0)
        #expect(!deadline.end())
    }

    @Test("limits become nanoseconds exactly, fractions kept; too long saturates, negative is zero")
    func timeAmounts() {
        #expect(RequestDeadline.timeAmount(.seconds(300)) == .seconds(300))
        #expect(RequestDeadline.timeAmount(.milliseconds(1_500)) == .milliseconds(1_500))
        #expect(RequestDeadline.timeAmount(.nanoseconds(7)) == .nanoseconds(7))
        #expect(RequestDeadline.timeAmount(.seconds(Int64.max)) == .nanoseconds(.max))
        #expect(RequestDeadline.timeAmount(.seconds(9_223_372_036)) == .nanoseconds(9_223_372_036_000_000_000), "the most whole seconds that fit")
        #expect(RequestDeadline.timeAmount(.seconds(9_223_372_036) + .milliseconds(900)) == .nanoseconds(.max),
                "seconds that fit plus a fraction that does not: saturated, not wrapped")
        #expect(RequestDeadline.timeAmount(.seconds(-5)) == .nanoseconds(0))
        #expect(RequestDeadline.timeAmount(.seconds(Int64.min)) == .nanoseconds(0))
    }

    @Test("a limit too long to count never fires")
    func endless() {
        let loop = EmbeddedEventLoop()
        let expired = Counter()
        let deadline = RequestDeadline(limit: .seconds(Int64.max), on: loop) { expired.add() }
        loop.advanceTime(by: .hours(24 * 365 * 100))
        #expect(expired.value == 0)
        #expect(!deadline.end())
    }
}
