import Foundation
import Harness

/// The agent's answers as JSON objects, for tests that look inside them.
extension LineClient {
    /// The next line decoded as a JSON object.
    public func readJSON(timeout: TimeInterval = 10) throws -> [String: Any] {
        guard let line = try readLine(timeout: timeout) else { throw HarnessError("the agent closed the connection") }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw HarnessError("not a JSON object: \(line)")
        }
        return object
    }

    /// Sends a request and returns its response, skipping notifications.
    public func call(_ id: Int, _ method: String, params: String = "{}", timeout: TimeInterval = 10) throws -> [String: Any] {
        try send("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"\(method)\",\"params\":\(params)}\n")
        while true {
            let message = try readJSON(timeout: timeout)
            if message["method"] != nil { continue }
            return message
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    /// `error.data.kind` of a response, if it is an error.
    public var errorKind: String? { ((self["error"] as? [String: Any])?["data"] as? [String: Any])?["kind"] as? String }
    public var errorCode: Int? { (self["error"] as? [String: Any])?["code"] as? Int }
    public var result: [String: Any]? { self["result"] as? [String: Any] }
}
