import AgentProtocol
import NIOCore

/// The whole pipeline of a connection the agent will not serve (it already
/// serves its maximum): once the channel is active, one error line, then
/// close. The line must wait for `channelActive`: a write issued from the
/// child initializer, before the channel is registered, never completes, and
/// the connection (and its slot) would never be released.
final class RefusalHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let line: [UInt8]

    init(error: AgentError) {
        line = (try? JSONEncoderLine.encode(RPCResponse(id: nil, error: error.rpcError))) ?? []
    }

    func channelActive(context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: line.count)
        buffer.writeBytes(line)
        // A few hundred bytes fit any fresh socket's send buffer, so the write
        // does not wait on the client; close once it is handed to the kernel.
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
        context.fireChannelActive()
    }

    /// Whatever the refused client sends is dropped unread.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
