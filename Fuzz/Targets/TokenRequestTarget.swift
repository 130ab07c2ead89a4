import AgentProtocol
import FoundationEssentials

extension FuzzTarget {
    /// A request line as the agent's fast path reads it
    /// (`TokenGetWire.readRequest`), checked against the usual reader:
    /// whatever the fast one accepts, RequestParser must read as the same
    /// `token.get` request, with the same id and params.
    static let tokenRequest = FuzzTarget(
        name: "token-request",
        summary: "a token.get request line read by TokenGetWire, differentially against RequestParser",
        maximumLength: 4096,
        seeds: {
            [
                Seed("plain", text: #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"work","minValid":60}}"#),
                Seed("reordered", text: #" { "params" : {"idToken":false,"scope":"openid","account":"a\/b"}, "method":"token.get", "id":-7, "jsonrpc":"2.0" } "#),
                Seed("other-method", text: #"{"jsonrpc":"2.0","id":1,"method":"agent.status","params":{}}"#),
                Seed("string-id", text: #"{"jsonrpc":"2.0","id":"1","method":"token.get","params":{"account":"work"}}"#),
                Seed("extremes", text: #"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"token.get","params":{"account":"x","minValid":9223372036854775807}}"#),
            ]
        },
        run: { bytes in
            guard let fast = TokenGetWire.readRequest(bytes) else { return }
            guard case .request(let usual) = RequestParser.parse(bytes: bytes) else {
                throw FuzzFinding("TokenGetWire read a request line RequestParser refuses")
            }
            try expect(usual.id == .number(fast.id) && usual.method == TokenGetMethod.name,
                       "TokenGetWire and RequestParser read a different id or method")
            let params: TokenGetMethod.Params
            do { params = try (usual.params ?? .object([:])).decode(as: TokenGetMethod.Params.self) } catch {
                throw FuzzFinding("TokenGetWire read params the usual decoding refuses: \(error)")
            }
            try expect(params == fast.params, "TokenGetWire and the usual decoding read different params")
        })
}
