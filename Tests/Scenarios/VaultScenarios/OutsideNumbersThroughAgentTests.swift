import Foundation
import Testing
import TestSupport

/// Hostile numbers through the real agent and CLI: each of these used to
/// trap inside `passkey-agent`, ending it (and relocking the vault) for
/// every client. After each, the agent must still be running and answering.
@Suite(.ownThreads) struct OutsideNumbersThroughAgentTests {
    static func expectAlive(_ agent: VaultAgent, _ what: String) throws {
        #expect(agent.harness.process?.poll() == nil, "the agent exited after \(what): \(agent.harness.process?.standardError ?? "")")
        #expect(try !agent.isLocked, "the vault is still unlocked after \(what)")
    }

    @Test("token put with expires_in \"9223372036854775807\": stored as never expiring; get and list answer")
    func hugeLifetime() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        let document = #"{"access_token":"AT-huge","token_type":"Bearer","expires_in":"9223372036854775807","#
            + #""issuer":"https://id.example.org","client_id":"cli","token_endpoint":"https://id.example.org/token"}"#
        let put = try agent.passkey(["token", "put", "huge"], input: document)
        #expect(put.status == 0, "\(put.standardError)")
        try Self.expectAlive(agent, "token put with a huge expires_in")
        let get = try agent.passkey(["token", "get", "huge", "--min-valid", "31622400"])
        #expect(get.standardOutput == "AT-huge\n", "\(get.standardError)")
        let list = try agent.passkey(["token", "list", "--json"])
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput.contains("9007199254740991"), "\(list.standardOutput)")
        let table = try agent.passkey(["token", "list"])
        #expect(table.status == 0, "\(table.standardError)")
        try Self.expectAlive(agent, "token get and list of a never-expiring token")
    }

    @Test("an access token whose exp is -2^63 or -1e300 counts as expired: get says so, list answers")
    func jwtExpiryAtTheBottom() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        for (account, exp) in [("edge", "-9223372036854775808"), ("ancient", "-1e300"), ("far", "1e300")] {
            let access = unsignedJWT("{\"sub\":\"alice\",\"exp\":\(exp),\"iat\":\(exp)}")
            let document = "{\"access_token\":\"\(access)\",\"token_type\":\"Bearer\",\"issuer\":\"https://id.example.org\","
                + "\"client_id\":\"cli\",\"token_endpoint\":\"https://id.example.org/token\"}"
            try agent.put(account, document)
        }
        for account in ["edge", "ancient"] {
            let get = try agent.passkey(["token", "get", account])
            #expect(get.status == 8, "\(account): \(get.standardError)")
            #expect(get.standardError.contains("no refresh token"), "\(account): \(get.standardError)")
        }
        #expect(try agent.passkey(["token", "get", "far"]).status == 0)
        let list = try agent.passkey(["token", "list", "--json"])
        #expect(list.status == 0, "\(list.standardError)")
        #expect(list.standardOutput.contains("-9007199254740991"), "\(list.standardOutput)")
        #expect(list.standardOutput.contains("9007199254740991"), "\(list.standardOutput)")
        let table = try agent.passkey(["token", "list"])
        #expect(table.status == 0, "\(table.standardError)")
        try Self.expectAlive(agent, "token get and list of tokens that expire at the ends of Int64")
    }
}
