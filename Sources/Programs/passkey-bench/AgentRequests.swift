import FoundationEssentials

/// JSON-RPC request lines for the raw client, made before any timed loop
/// (so encoding them is never in a figure), and the parts of the answers the
/// benchmark checks (outside the timed loops too).
enum AgentRequest {
    private struct Envelope<Params: Encodable>: Encodable {
        var jsonrpc = "2.0"
        var id: Int
        var method: String
        var params: Params?
    }

    /// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}` and its newline.
    static func line<Params: Encodable>(id: Int, _ method: String, _ params: Params) throws(BenchError) -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(Envelope(id: id, method: method, params: params))) + [UInt8(ascii: "\n")]
        } catch {
            throw .stepFailed("encoding a \(method) request", reason: "\(error)")
        }
    }

    /// A request without params.
    static func line(id: Int, _ method: String) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)"}"#.utf8) + [UInt8(ascii: "\n")]
    }
}

/// An answer line: its result, or the agent's error.
struct AgentAnswer<Result: Decodable>: Decodable {
    struct Failure: Decodable {
        var code: Int
        var message: String
    }

    var result: Result?
    var error: Failure?
}

extension AgentAnswer {
    /// The result in `text`, an answer line; an error answer is a failed step, with the agent's message.
    static func result(of text: String, _ step: String) throws(BenchError) -> Result {
        let answer: AgentAnswer<Result>
        do {
            answer = try JSONDecoder().decode(AgentAnswer<Result>.self, from: Data(text.utf8))
        } catch {
            throw .stepFailed(step, reason: "the agent's answer does not decode (\(error)): \(text.prefix(200))")
        }
        if let error = answer.error { throw .stepFailed(step, reason: "the agent answered \(error.code): \(error.message)") }
        guard let result = answer.result else { throw .stepFailed(step, reason: "an answer without a result: \(text.prefix(200))") }
        return result
    }
}

/// For answers whose result the benchmark does not look at.
struct IgnoredResult: Decodable {}

extension RawSocketClient {
    /// Sends one request and returns its answer line, passing over the
    /// `progress` notifications the agent sends while a device works
    /// (`processing`, `touch`): they are part of what the request costs.
    func answerSkippingProgress(_ request: [UInt8]) throws(BenchError) -> String {
        try send(request)
        while true {
            var text = ""
            _ = try receiveLine { text = String(decoding: $0, as: UTF8.self) }
            if !text.contains(#""method":"progress""#) { return text }
        }
    }

    /// Sends one request and decodes the result of its answer; an error
    /// answer is a failed step, with the agent's message.
    @discardableResult
    func call<Result: Decodable>(_ request: [UInt8], _ step: String, as: Result.Type = IgnoredResult.self)
        throws(BenchError) -> Result {
        try AgentAnswer<Result>.result(of: try answerSkippingProgress(request), step)
    }
}
