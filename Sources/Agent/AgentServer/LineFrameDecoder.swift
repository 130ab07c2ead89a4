import AgentProtocol
import NIOCore

/// Splits the byte stream into lines (the protocol's frames) by
/// `LineFramer`'s rule. A line longer than the limit is an error: the
/// connection gets one error answer and is closed.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    private var framer: LineFramer

    init(maxLength: Int) { framer = LineFramer(maxLength: maxLength) }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try framer.nextFrame(in: buffer.readableBytesView) else { return .needMoreData }
        emit(frame, from: &buffer, context: context)
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if let frame = try framer.lastFrame(in: buffer.readableBytesView) { emit(frame, from: &buffer, context: context) }
        return .needMoreData
    }

    private func emit(_ frame: LineFramer.Frame, from buffer: inout ByteBuffer, context: ChannelHandlerContext) {
        guard let line = buffer.readSlice(length: frame.length) else { return }
        buffer.moveReaderIndex(forwardBy: frame.consumed - frame.length)
        context.fireChannelRead(wrapInboundOut(line))
    }
}
