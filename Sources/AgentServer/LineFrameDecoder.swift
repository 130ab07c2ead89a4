import NIOCore

/// Splits the byte stream into lines (the protocol's frames). A line longer
/// than `maxLength` is an error: the connection gets one error answer and is
/// closed, so a client cannot make the agent buffer without bound.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    struct LineTooLong: Error {}

    let maxLength: Int
    /// Where the newline search resumes, so a long partial line is scanned once.
    private var scanned = 0

    init(maxLength: Int) { self.maxLength = maxLength }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        if let newline = view.dropFirst(scanned).firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - view.startIndex
            scanned = 0
            guard length <= maxLength else { throw LineTooLong() }
            var line = buffer.readSlice(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytesView.last == UInt8(ascii: "\r") { line = line.getSlice(at: line.readerIndex, length: length - 1)! }
            context.fireChannelRead(wrapInboundOut(line))
            return .continue
        }
        scanned = view.count
        if view.count > maxLength { throw LineTooLong() }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without its newline is still a request.
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0, buffer.readableBytes <= maxLength {
            context.fireChannelRead(wrapInboundOut(buffer.readSlice(length: buffer.readableBytes)!))
        }
        return .needMoreData
    }
}
