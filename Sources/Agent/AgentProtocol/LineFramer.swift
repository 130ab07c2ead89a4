/// The socket protocol's framing rule, apart from any I/O library: a frame is
/// the bytes before a `\n`, without one trailing `\r`; a frame longer than
/// `maxLength` (newline and `\r` not counted) is an error, so a client cannot
/// make the agent buffer without bound. The agent's NIO decoder and the
/// libFuzzer target both drive this type.
public struct LineFramer: Sendable {
    public struct LineTooLong: Error, Sendable {
        @inlinable public init() {}
    }

    /// One line found in the input.
    public struct Frame: Sendable, Equatable {
        /// Bytes of the line itself, from the start of the input.
        public var length: Int
        /// Bytes to drop from the input: the line, its `\r` if any, and the `\n`.
        public var consumed: Int

        @inlinable public init(length: Int, consumed: Int) {
            self.length = length
            self.consumed = consumed
        }
    }

    public let maxLength: Int
    /// Bytes of the pending input already searched for a newline, so a long
    /// partial line is scanned once, not again on every read.
    @usableFromInline var scanned = 0

    public init(maxLength: Int) { self.maxLength = max(0, maxLength) }

    /// The next line at the start of `input` (the bytes not yet consumed), or
    /// nil until its newline arrives. After a frame, the caller drops
    /// `consumed` bytes before the next call; between calls without a frame,
    /// it only appends to `input`.
    // Inlinable so the agent's byte-buffer view gets a specialised scan
    // rather than one generic call per byte across the module boundary.
    @inlinable public mutating func nextFrame<Bytes: Collection>(in input: Bytes) throws(LineTooLong) -> Frame? where Bytes.Element == UInt8 {
        let count = input.count
        let resume = min(scanned, count)
        if let newline = input.dropFirst(resume).firstIndex(of: UInt8(ascii: "\n")) {
            scanned = 0
            let end = input.distance(from: input.startIndex, to: newline)
            let length = Self.withoutCR(input, end: end)
            guard length <= maxLength else { throw LineTooLong() }
            return Frame(length: length, consumed: end + 1)
        }
        scanned = count
        // One more byte may be the `\r` of a line at the limit.
        if count > maxLength + 1 || (count == maxLength + 1 && Self.withoutCR(input, end: count) == count) { throw LineTooLong() }
        return nil
    }

    /// At end of input: what is left without a newline is still one last line
    /// when it fits (a client may omit the final newline).
    @inlinable public mutating func lastFrame<Bytes: Collection>(in input: Bytes) throws(LineTooLong) -> Frame? where Bytes.Element == UInt8 {
        scanned = 0
        let count = input.count
        guard count > 0 else { return nil }
        let length = Self.withoutCR(input, end: count)
        guard length <= maxLength else { throw LineTooLong() }
        return Frame(length: length, consumed: count)
    }

    /// The length of the first `end` bytes without one trailing `\r`.
    @inlinable static func withoutCR<Bytes: Collection>(_ input: Bytes, end: Int) -> Int where Bytes.Element == UInt8 {
        guard end > 0 else { return 0 }
        let last = input.index(input.startIndex, offsetBy: end - 1)
        return input[last] == UInt8(ascii: "\r") ? end - 1 : end
    }

    /// Every complete line of `input`, then its unterminated tail as a last
    /// line: the whole rule in one call (for fuzzing and tests). Stops at the
    /// first over-long line, as the agent closes the connection there.
    public static func lines(in input: [UInt8], maxLength: Int) -> (lines: [ArraySlice<UInt8>], tooLong: Bool) {
        var framer = LineFramer(maxLength: maxLength)
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        do {
            while let frame = try framer.nextFrame(in: input[start...]) {
                lines.append(input[start..<(start + frame.length)])
                start += frame.consumed
            }
            if let frame = try framer.lastFrame(in: input[start...]) {
                lines.append(input[start..<(start + frame.length)])
            }
        } catch {
            return (lines, true)
        }
        return (lines, false)
    }
}
