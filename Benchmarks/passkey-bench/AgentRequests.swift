import FoundationEssentials
import Harness

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

/// The harness's `LineClient` as the benchmark drives the agent: request
/// lines made beforehand, answers read as bytes (no JSON parsed in a timed
/// loop), failures as `BenchError`s.
extension LineClient {
    /// A connection to the agent's socket at `path`.
    static func agent(at path: String) throws(BenchError) -> LineClient {
        do { return try LineClient(path: path) } catch {
            throw .stepFailed("connecting to the agent", reason: error.description)
        }
    }

    /// Sends one request line.
    func send(request: [UInt8]) throws(BenchError) {
        do { try send(request) } catch { throw .stepFailed("writing to the agent", reason: error.description) }
    }

    /// The next answer line's bytes, handed to `body`; the agent closing the connection first is a failure.
    func receiveLine<Result>(_ body: (ArraySlice<UInt8>) -> Result) throws(BenchError) -> Result {
        let line: Result?
        do { line = try nextLine(body) } catch { throw .stepFailed("reading the agent's answer", reason: error.description) }
        guard let line else { throw .stepFailed("reading the agent's answer", reason: "the agent closed the connection") }
        return line
    }

    /// One request line out, one answer line back; the answer's length.
    func roundTrip(_ request: [UInt8]) throws(BenchError) -> Int {
        try send(request: request)
        return try receiveLine { $0.count }
    }

    /// The first answer line, as text (to check the agent answers what we think).
    func roundTripText(_ request: [UInt8]) throws(BenchError) -> String {
        try send(request: request)
        return try receiveLine { String(decoding: $0, as: UTF8.self) }
    }

    /// Sends one request and returns its answer line, passing over the
    /// `progress` notifications the agent sends while a device works
    /// (`processing`, `touch`): they are part of what the request costs.
    func answerSkippingProgress(_ request: [UInt8]) throws(BenchError) -> String {
        try send(request: request)
        while true {
            let text = try receiveLine { String(decoding: $0, as: UTF8.self) }
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
