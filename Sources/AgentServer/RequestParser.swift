import AgentProtocol
import FoundationEssentials

/// Reads one request line. Invalid JSON is a parse error (-32700, and the
/// connection stays usable); valid JSON that is not a request is an invalid
/// request (-32600), answered with the request's id when it has a usable one.
enum RequestParser {
    enum Outcome {
        case request(RPCRequest)
        case failure(id: RPCID?, AgentError)
    }

    private struct Shape: Decodable {
        var jsonrpc: String
        var id: RPCID?
        var method: String
        var params: JSONValue?
    }

    static func parse(_ line: Data) -> Outcome {
        let decoder = JSONDecoder()
        if let shape = try? decoder.decode(Shape.self, from: line), shape.jsonrpc == "2.0" {
            if let params = shape.params, !Self.isStructured(params) {
                return .failure(id: shape.id, AgentError(.invalidRequest, "params must be an object or an array"))
            }
            return .request(RPCRequest(id: shape.id, method: shape.method, params: shape.params))
        }
        guard let value = try? decoder.decode(JSONValue.self, from: line) else {
            return .failure(id: nil, AgentError(.parseError, "the line is not valid JSON"))
        }
        var id: RPCID?
        switch value["id"] {
        case .number(let n)? where n.rounded() == n: id = .number(Int64(n))
        case .string(let s)?: id = .string(s)
        default: id = nil
        }
        guard case .object = value else {
            return .failure(id: nil, AgentError(.invalidRequest, "a request must be a JSON object"))
        }
        guard value["jsonrpc"] == .string("2.0") else {
            return .failure(id: id, AgentError(.invalidRequest, "\"jsonrpc\" must be \"2.0\""))
        }
        return .failure(id: id, AgentError(.invalidRequest, "a request needs a string \"method\" and a number or string \"id\""))
    }

    private static func isStructured(_ value: JSONValue) -> Bool {
        switch value {
        case .object, .array: return true
        default: return false
        }
    }
}
