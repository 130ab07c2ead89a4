import BoundedJSON
import FoundationEssentials

/// Reads one request line (the bytes between two newlines, as `LineFramer`
/// cuts them). Invalid JSON is a parse error (-32700, and the connection stays
/// usable); valid JSON that is not a request is an invalid request (-32600),
/// answered with the request's id when it has a usable one.
///
/// Every byte here comes from a local process that may be hostile: nothing in
/// this type may trap, whatever the line holds (a libFuzzer target runs it).
public enum RequestParser {
    public enum Outcome: Sendable {
        case request(RPCRequest)
        /// The answer to send: `id` is nil when the line had no usable id.
        case failure(id: RPCID?, AgentError)
    }

    private struct Shape: Decodable {
        var jsonrpc: String
        var id: RPCID?
        var method: String
        var params: JSONValue?
    }

    /// Deeper nesting than any method's params need. `JSONValue`'s decoder
    /// costs time quadratic in the depth (a 1 KB line 500 levels deep takes a
    /// second of the I/O thread), so the limit is checked before decoding.
    public static let maxNestingDepth = 64
    /// More arrays, objects, elements and members than any method's params
    /// hold. Decoding costs about 3 µs per value (a 1 MiB line of `{}`s, a
    /// second), so this bounds one line's cost at tens of milliseconds.
    public static let maxValues = 10_000

    /// The line's length is bounded before (`LineFramer`), so only its shape is measured here.
    static let limits = JSONLimits(maximumBytes: .max, maximumDepth: maxNestingDepth, maximumValues: maxValues)

    public static func parse(_ line: Data) -> Outcome {
        switch limits.problem(line) {
        case .tooDeep?:
            return .failure(id: nil, AgentError(.invalidRequest, "the request nests deeper than \(maxNestingDepth) levels"))
        case .tooManyValues?:
            return .failure(id: nil, AgentError(.invalidRequest, "the request holds more than \(maxValues) values"))
        case .tooLarge?, .notJSON?, nil: break
        }
        let decoder = JSONDecoder()
        if let shape = try? decoder.decode(Shape.self, from: line), shape.jsonrpc == "2.0" {
            // `"params": null` decodes as absent: the same as a method without params.
            if let params = shape.params {
                guard case .object = params else {
                    return .failure(id: shape.id, AgentError(.invalidRequest, "params must be an object"))
                }
            }
            return .request(RPCRequest(id: shape.id, method: shape.method, params: shape.params))
        }
        guard let value = try? decoder.decode(JSONValue.self, from: line) else {
            return .failure(id: nil, AgentError(.parseError, "the line is not valid JSON"))
        }
        guard case .object = value else {
            return .failure(id: nil, AgentError(.invalidRequest, "a request must be a JSON object"))
        }
        let id = (try? decoder.decode(IDOnly.self, from: line))?.id
        guard value["jsonrpc"] == .string("2.0") else {
            return .failure(id: id, AgentError(.invalidRequest, "\"jsonrpc\" must be \"2.0\""))
        }
        return .failure(id: id, AgentError(.invalidRequest, "a request needs a string \"method\" and an integer or string \"id\""))
    }

    public static func parse(bytes: some Sequence<UInt8>) -> Outcome {
        parse(Data(bytes))
    }

    /// The id of a request that is otherwise malformed, so its answer can
    /// name it: read from the line's text by `RPCID` (a string, or a number
    /// that is exactly an Int64), not from a Double, which would round
    /// -2^63-1 to -2^63. Any other id (`1e300`, 1.5) is no usable id.
    private struct IDOnly: Decodable {
        var id: RPCID?
    }
}
