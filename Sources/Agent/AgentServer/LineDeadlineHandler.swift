import AgentProtocol
import NIOCore

/// A request line must end within `lineTimeout` of its first byte. Without
/// this, a client that sends half a line and then nothing (a hung script, a
/// slowloris) holds one of the agent's connection slots for ever.
///
/// Bytes arrive in order and the decoder after this handler consumes every
/// complete line, so a partial line is pending exactly when the last byte
/// received is not a newline: that is all this handler needs to know.
final class LineDeadlineHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let lineTimeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(lineTimeout: Duration) {
        // As the request limit is counted: in nanoseconds with its fraction of
        // a second (a 1.5 s limit is not 1 s, a 0.5 s one not 0, which fired
        // at the first byte), saturating beyond Int64 nanoseconds.
        self.lineTimeout = RequestDeadline.timeAmount(lineTimeout)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if let last = bytes.readableBytesView.last {
            if last == UInt8(ascii: "\n") {
                deadline?.cancel()
                deadline = nil
            } else if deadline == nil {
                let channel = context.channel
                let seconds = lineTimeout.nanoseconds / 1_000_000_000
                deadline = context.eventLoop.scheduleTask(in: lineTimeout) {
                    let error = AgentError(.timeout, "a request line did not end within \(seconds) s; the connection is closed")
                    var buffer = channel.allocator.buffer(capacity: 200)
                    if let line = try? JSONEncoderLine.encode(RPCResponse(id: nil, error: error.rpcError)) { buffer.writeBytes(line) }
                    channel.writeAndFlush(buffer).whenComplete { _ in channel.close(promise: nil) }
                }
            }
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }
}
