import Foundation
import Testing
import TestSupport

/// Refusals a script must tell from a person's "no" (exit 4): a login that
/// signs in another subject exits 12, an invoke request from an untrusted
/// application exits 13 (`passkey --help`, EXIT STATUS).
@Suite(.ownThreads) struct RefusalExitStatusTests {
    @Test("a login as another subject exits 12 with errorCode subject_mismatch")
    func subjectMismatch() throws {
        let provider = try LoginProvider.devserver()
        let agent = try LoginThroughAgentTests.agent()
        let alice = try agent.harness.passkey(["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
                                              extraEnvironment: provider.browserEnvironment(user: "alice"), timeout: 90)
        #expect(alice.status == 0, "\(alice.standardError)")
        let bob = try agent.harness.passkey(["login", "work"], extraEnvironment: provider.browserEnvironment(user: "bob"), timeout: 90)
        #expect(bob.status == 12, "\(bob.standardError)")
        #expect(bob.standardError.contains("another user"))
        let json = try agent.harness.passkey(["login", "work", "--json"], extraEnvironment: provider.browserEnvironment(user: "bob"),
                                             timeout: 90)
        #expect(json.status == 12)
        #expect(json.standardOutput.contains("\"errorCode\" : \"subject_mismatch\""), "\(json.standardOutput)")
    }

    @Test("an invoke request from an application config.toml does not trust exits 13, not 4")
    func untrustedInvoke() throws {
        let (provider, agent) = try InvokeThroughAgentTests.setUp(trusting: false)
        let identity = try provider.adminPOST(InvokeThroughAgentTests.bi + "/identities",
                                              #"{"identity":{"display_name":"Erin","traits":{"username":"erin"}}}"#, scratch: agent.harness.home)
        let id = try #require(identity["id"] as? String)
        let job = try provider.adminPOST(InvokeThroughAgentTests.bi + "/identities/\(id)/credential-binding-jobs",
                                         #"{"job":{"delivery_method":"RETURN"}}"#, scratch: agent.harness.home)
        let refused = try agent.passkey(["invoke", "-"], input: try #require(job["credential_binding_link"] as? String) + "\n")
        #expect(refused.status == 13, "\(refused.standardError)")
        #expect(try agent.passkey(["--help"]).standardOutput.contains("13  an invoke request was refused as untrusted"))
    }
}
