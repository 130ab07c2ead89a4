import BuildInfo
import FoundationEssentials

/// The version of the socket protocol docs/PROTOCOL.md describes.
/// Bumped when a method changes incompatibly; additions keep it.
public let protocolVersion = 1

/// A JSON-RPC 2.0 id: a number or a string (null ids mark notifications).
public enum RPCID: Sendable, Hashable, Codable, CustomStringConvertible {
    case number(Int64)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // JSONDecoder reads an Int64 from the number's text exactly: 1e300,
        // 2^63 or 1.5 throw (and the id is unusable), they never trap or round.
        if let n = try? container.decode(Int64.self) { self = .number(n) }
        else { self = .string(try container.decode(String.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let n): try container.encode(n)
        case .string(let s): try container.encode(s)
        }
    }

    public var description: String {
        switch self {
        case .number(let n): return String(n)
        case .string(let s): return s
        }
    }
}

/// One request line: `{"jsonrpc":"2.0","id":1,"method":"agent.status","params":{}}`.
public struct RPCRequest: Sendable, Codable {
    public var jsonrpc: String
    public var id: RPCID?
    public var method: String
    public var params: JSONValue?

    public init(id: RPCID?, method: String, params: JSONValue?) {
        self.jsonrpc = "2.0"
        self.id = id
        self.method = method
        self.params = params
    }
}

/// The error member of a response.
public struct RPCErrorObject: Sendable, Codable, Equatable {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public static let parseErrorCode = -32700
    public static let invalidRequestCode = -32600
    public static let methodNotFoundCode = -32601
    public static let invalidParamsCode = -32602
    public static let internalErrorCode = -32603
}

/// One response line: exactly one of `result` and `error` is present.
public struct RPCResponse: Sendable, Codable {
    public var jsonrpc: String
    public var id: RPCID?
    public var result: JSONValue?
    public var error: RPCErrorObject?

    public init(id: RPCID?, result: JSONValue) {
        self.jsonrpc = "2.0"
        self.id = id
        self.result = result
    }

    public init(id: RPCID?, error: RPCErrorObject) {
        self.jsonrpc = "2.0"
        self.id = id
        self.error = error
    }

    enum CodingKeys: String, CodingKey { case jsonrpc, id, result, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        // JSON-RPC wants `"id": null` when the request's id could not be read.
        if let id { try container.encode(id, forKey: .id) } else { try container.encodeNil(forKey: .id) }
        if let error { try container.encode(error, forKey: .error) } else { try container.encode(result ?? .null, forKey: .result) }
    }
}

/// A notification from the agent, e.g. `{"jsonrpc":"2.0","method":"progress","params":{"id":1,"stage":"touch"}}`.
public struct RPCNotification: Sendable, Codable {
    public var jsonrpc: String
    public var method: String
    public var params: JSONValue

    public init(method: String, params: JSONValue) {
        self.jsonrpc = "2.0"
        self.method = method
        self.params = params
    }
}
/// The release `agent.status` reports: the one every program's `--version` prints.
public let passkeyAgentVersion = BuildInfo.version
