import Foundation
import Testing
import TestSupport

/// The same refusal through the real CLI and agent: nothing is stored.
@Suite(.ownThreads) struct TokenEndpointURLThroughAgentTests {
    @Test("token put refuses a plain-http endpoint whose host hides behind user info; the agent keeps it out of the vault")
    func userInfoEndpointRefused() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        for endpoint in ["http://127.0.0.1:1@127.0.0.2:18080/token", "http://localhost:80@evil.example/token",
                         "http://127.evil.example/token"] {
            let document = VaultAgent.document(access: "AT-x", refresh: "RT-x", expiresIn: 0, endpoint: endpoint)
            let put = try agent.passkey(["token", "put", "sneaky"], input: document)
            #expect(put.status != 0, "\(endpoint) was accepted")
            #expect(put.standardError.contains("token_endpoint"), "\(endpoint): \(put.standardError)")
        }
        #expect(try agent.passkey(["token", "get", "sneaky"]).status == 10)
        try OutsideNumbersThroughAgentTests.expectAlive(agent, "refused token puts")
    }
}
