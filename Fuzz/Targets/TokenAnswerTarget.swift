import AgentClient
import AgentProtocol
import FoundationEssentials

extension FuzzTarget {
    /// The agent's answer line as the quick `passkey token get` reads it
    /// (`TokenGetWire.answer`), checked against the usual reader: whatever
    /// the quick one accepts, JSONDecoder must read to the same result.
    static let tokenAnswer = FuzzTarget(
        name: "token-answer",
        summary: "an agent's answer line to token.get read by TokenGetWire, differentially against JSONDecoder",
        maximumLength: 4096,
        seeds: {
            [
                Seed("success", text: #"{"jsonrpc":"2.0","id":1,"result":{"accessToken":"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln","tokenType":"Bearer","expiresAt":1800000000,"refreshed":false,"scope":"openid offline_access"}}"#),
                Seed("refreshed-escaped-slash", text: #"{"id":1,"jsonrpc":"2.0","result":{"refreshed":true,"accessToken":"a\/b","tokenType":"Bearer","idToken":null,"expiresAt":null}}"#),
                Seed("error", text: #"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"the vault is locked","data":{"kind":"locked"}}}"#),
                Seed("progress", text: #"{"jsonrpc":"2.0","method":"progress","params":{"id":1,"stage":"processing"}}"#),
                Seed("numbers", text: #"{"jsonrpc":"2.0","id":1,"result":{"accessToken":"x","tokenType":"y","expiresAt":-9223372036854775808,"refreshed":false}}"#),
            ]
        },
        run: { bytes in
            guard let quick = TokenGetWire.answer(bytes, id: 1) else { return }
            struct Answer: Decodable {
                var jsonrpc: String
                var id: Int64
                var result: AccessTokenResult
            }
            let usual: Answer
            do { usual = try JSONDecoder().decode(Answer.self, from: Data(bytes)) } catch {
                throw FuzzFinding("TokenGetWire read an answer JSONDecoder refuses: \(error)")
            }
            try expect(usual.jsonrpc == "2.0" && usual.id == 1 && usual.result == quick,
                       "TokenGetWire and JSONDecoder read different results")
        })
}
