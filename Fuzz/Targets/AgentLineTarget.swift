import AgentProtocol

extension FuzzTarget {
    /// What a local process writes to the agent's socket: bytes cut into lines
    /// by `LineFramer` (the rule the agent's NIO decoder applies), each line
    /// parsed by `RequestParser`. The framer fed in small pieces, as reads
    /// arrive, must cut the same lines as when given everything at once.
    static let agentLine = FuzzTarget(
        name: "agent-line",
        summary: "socket bytes cut into lines by LineFramer (whole and in pieces, limits 64 and 1 MiB), each line into RequestParser",
        maximumLength: 4096,
        seeds: {
            [
                Seed("status", text: #"{"jsonrpc":"2.0","id":1,"method":"agent.status"}"# + "\n"),
                Seed("token-get", text: #"{"jsonrpc":"2.0","id":"a-1","method":"token.get","params":{"account":"work","minValidSeconds":60}}"# + "\r\n"),
                Seed("two-lines-no-final-newline", text: #"{"jsonrpc":"2.0","id":2,"method":"vault.lock"}"# + "\n" + #"{"jsonrpc":"2.0","method":"$/cancel","params":{"id":2}}"#),
                Seed("huge-id", text: #"{"jsonrpc":"2.0","id":1e300,"method":"agent.status"}"# + "\n" + #"{"id":9223372036854775808}"# + "\n"),
                Seed("params-array", text: #"{"jsonrpc":"2.0","id":3,"method":"token.list","params":[1,2]}"# + "\n"),
                Seed("deep-nesting", text: String(repeating: "[", count: 70) + "\n"),
            ]
        },
        run: { bytes in
            for limit in [64, 1 << 20] {
                let whole = LineFramer.lines(in: bytes, maxLength: limit)
                let pieces = linesFedInPieces(bytes, maxLength: limit, pieceSize: 1 + Int(bytes.first ?? 0) % 13)
                try expect(whole.lines.map(Array.init) == pieces.lines && whole.tooLong == pieces.tooLong,
                           "LineFramer cuts different lines when the input arrives in pieces (limit \(limit))")
                for line in whole.lines {
                    switch RequestParser.parse(bytes: line) {
                    case .request(let request): _ = request.method
                    case .failure(_, let error): _ = error.kind
                    }
                }
            }
        })

    /// The framer as the agent drives it: input appended a piece at a time, each line dropped once cut.
    private static func linesFedInPieces(_ bytes: [UInt8], maxLength: Int, pieceSize: Int) -> (lines: [[UInt8]], tooLong: Bool) {
        var framer = LineFramer(maxLength: maxLength)
        var pending: [UInt8] = []
        var lines: [[UInt8]] = []
        var offset = 0
        do {
            while offset < bytes.count {
                pending += bytes[offset..<min(offset + pieceSize, bytes.count)]
                offset += pieceSize
                while let frame = try framer.nextFrame(in: pending) {
                    lines.append(Array(pending[..<frame.length]))
                    pending.removeFirst(frame.consumed)
                }
            }
            if let frame = try framer.lastFrame(in: pending) { lines.append(Array(pending[..<frame.length])) }
        } catch {
            return (lines, true)
        }
        return (lines, false)
    }
}
