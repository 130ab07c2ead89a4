import AgentClient
import AgentProtocol
import Foundation
import Testing
import TestSupport

/// The quick `passkey token get`'s hand-written request and strict answer
/// reader (`TokenGetWire`): the agent's plain success line reads to what
/// JSONDecoder reads; anything else is nil, for the usual path.
@Suite(.ownThreads) struct TokenGetWireTests {
    static let success = #"{"jsonrpc":"2.0","id":1,"result":{"accessToken":"eyJ.eyJ.sig","tokenType":"Bearer","expiresAt":1800000000,"refreshed":false,"scope":"openid offline_access"}}"#

    @Test func theRequestIsTheOneJSONEncoderWouldSend() throws {
        let line = try #require(TokenGetWire.request(id: 1, account: "work@example.org", minValid: 60))
        #expect(line.last == UInt8(ascii: "\n"))
        let request = try #require(try JSONSerialization.jsonObject(with: Data(line.dropLast())) as? [String: Any])
        #expect(request["jsonrpc"] as? String == "2.0" && request["id"] as? Int == 1 && request["method"] as? String == "token.get")
        let params = try #require(request["params"] as? [String: Any])
        #expect(params["account"] as? String == "work@example.org" && params["minValid"] as? Int == 60)
        for awkward in ["", "quote\"d", "back\\slash", "tab\there", "naïve"] {
            #expect(TokenGetWire.request(id: 1, account: awkward, minValid: 60) == nil, "\(awkward): the usual path encodes it")
        }
    }

    @Test func thePlainSuccessLineReadsAsJSONDecoderReadsIt() throws {
        let quick = try #require(TokenGetWire.answer(Array(Self.success.utf8), id: 1))
        #expect(quick == AccessTokenResult(accessToken: "eyJ.eyJ.sig", tokenType: "Bearer", expiresAt: 1_800_000_000, refreshed: false,
                                           scope: "openid offline_access"))
        let reordered = #"{ "result" : {"refreshed":true,"idToken":null,"tokenType":"Bearer","accessToken":"a\/b"}, "id":1, "jsonrpc":"2.0" }"#
        #expect(TokenGetWire.answer(Array(reordered.utf8), id: 1)
                == AccessTokenResult(accessToken: "a/b", tokenType: "Bearer", expiresAt: nil, refreshed: true))
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":2,"result":{"accessToken":"x","tokenType":"Bearer","refreshed":false}}"#,  // another id
        #"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"locked","data":{"kind":"locked"}}}"#,
        #"{"jsonrpc":"2.0","method":"progress","params":{"id":1,"stage":"processing"}}"#,
        #"{"jsonrpc":"2.0","id":1,"result":{"accessToken":"x","tokenType":"Bearer","refreshed":false,"extra":1}}"#,
        #"{"jsonrpc":"2.0","id":1,"result":{"accessToken":"x","accessToken":"y","tokenType":"Bearer","refreshed":false}}"#,
        #"{"jsonrpc":"2.0","id":1,"result":{"accessToken":"\u0078","tokenType":"Bearer","refreshed":false}}"#,
        #"{"jsonrpc":"2.0","id":1,"result":{"accessToken":"x","tokenType":"Bearer","refreshed":false,"expiresAt":1.5}}"#,
        #"{"jsonrpc":"2.0","id":1,"result":{"accessToken":"x","tokenType":"Bearer","refreshed":false,"expiresAt":99999999999999999999}}"#,
        #"{"jsonrpc":"2.0","id":1,"result":{"accessToken":"x","tokenType":"Bearer"}}"#,
        #"{"jsonrpc":"2.0","id":1,"result":{"accessToken":"x","tokenType":"Bearer","refreshed":false}} trailing"#,
        #"{"jsonrpc":"2.0","id":01,"result":{"accessToken":"x","tokenType":"Bearer","refreshed":false}}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"accessToken\":\"na\u{EF}ve\",\"tokenType\":\"Bearer\",\"refreshed\":false}}",
    ])
    func anythingElseIsLeftToTheUsualPath(_ line: String) {
        #expect(TokenGetWire.answer(Array(line.utf8), id: 1) == nil)
    }

    // The agent's side: the plain request line, read by hand before any JSONDecoder.

    @Test func thePlainRequestReadsAsRequestParserReadsIt() throws {
        let line = try #require(TokenGetWire.request(id: 7, account: "work@example.org", minValid: 120))
        let read = try #require(TokenGetWire.readRequest(line))
        #expect(read.id == 7 && read.params == TokenGetMethod.Params(account: "work@example.org", minValid: 120))
        let spaced = #" { "params" : { "idToken" : false , "scope" : "openid" , "account" : "a\/b" } , "method" : "token.get" , "id" : -3 , "jsonrpc" : "2.0" } "#
        let other = try #require(TokenGetWire.readRequest(Array(spaced.utf8)))
        #expect(other.id == -3 && other.params == TokenGetMethod.Params(account: "a/b", scope: "openid", idToken: false))
        // Just inside the range the usual way holds exactly (params numbers are Doubles in `JSONValue`).
        let edge = #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x","minValid":9007199254740991}}"#
        #expect(TokenGetWire.readRequest(Array(edge.utf8))?.params.minValid == 9_007_199_254_740_991)
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":"1","method":"token.get","params":{"account":"x"}}"#,  // a string id
        #"{"jsonrpc":"2.0","id":1,"method":"token.put","params":{"account":"x"}}"#,  // another method
        #"{"jsonrpc":"2.0","id":1,"method":"token.get"}"#,  // no params
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{}}"#,  // no account
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x","extra":1}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x","account":"y"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x","minValid":null}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x","minValid":9007199254740992}}"#,  // 2^53: the fuzz target's finding
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x","minValid":-9007199254740992}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x","minValid":60.0}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"\u0078"}}"#,
        #"{"jsonrpc":"1.0","id":1,"method":"token.get","params":{"account":"x"}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x"},"extra":1}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x"}} trailing"#,
        #"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"x","scope":""# + String(repeating: "s", count: 4096) + #""}}"#,
    ])
    func anyOtherRequestIsLeftToRequestParser(_ line: String) {
        #expect(TokenGetWire.readRequest(Array(line.utf8)) == nil)
    }
}
