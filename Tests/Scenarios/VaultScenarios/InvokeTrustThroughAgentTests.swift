import Foundation
import Testing
import TestSupport

/// Issue 23 through the real agent and CLI: before a binding or a sign-in
/// touches the key the person is asked (a scripted pinentry answers), seeing
/// the RP ID and the trusted application; a no, or nothing to ask with, or
/// a request for another site's RP ID leaves the key untouched.
@Suite(.ownThreads) struct InvokeTrustThroughAgentTests {
    typealias World = InvokeThroughAgentTests

    @Test("binding and signing in each ask the person first, naming the RP ID and the application")
    func eachInvokeIsConfirmedFirst() throws {
        let (provider, agent) = try World.setUp()
        try World.bindAlice(provider, agent)
        let login = try agent.harness.passkey(
            ["login", "okta", "--issuer", provider.issuer, "--client-id", "cli", "--idp", "0oa-bi-dev", "--flow", "browser"],
            extraEnvironment: World.handlerBrowser(), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")
        let shown = try #require(agent.pinentry).confirmations
        #expect(shown.count == 2, "\(shown)")
        #expect(shown.first?.hasPrefix("Add a passkey for bi.passkey.test to your security key?") == true, "\(shown)")
        #expect(shown.first?.contains("Identity: alice") == true, "\(shown)")
        let signIn = try #require(shown.last)
        #expect(signIn.hasPrefix("Sign in to bi.passkey.test with your security key?"), "\(signIn)")
        #expect(signIn.contains("Trusted application: dev (\(provider.origin)\(World.bi)/applications/a1)"), "\(signIn)")
        #expect(signIn.contains("The request says (its own words, not checked):\n  Application: Beyond Identity Dev"), "\(signIn)")
    }

    @Test("a person who says no: the binding is refused and the key is not used; the link still works afterwards")
    func aDeclinedBindingTouchesNothing() throws {
        let (provider, agent) = try World.setUp(answer: .deny)
        let identity = try provider.adminPOST(World.bi + "/identities", #"{"identity":{"display_name":"Bob","traits":{"username":"bob"}}}"#,
                                              scratch: agent.harness.home)
        let id = try #require(identity["id"] as? String)
        let job = try provider.adminPOST(World.bi + "/identities/\(id)/credential-binding-jobs", #"{"job":{"delivery_method":"RETURN"}}"#,
                                         scratch: agent.harness.home)
        let link = try #require(job["credential_binding_link"] as? String)
        let declined = try agent.passkey(["invoke", "-"], input: link + "\n")
        #expect(declined.status != 0)
        #expect(declined.standardError.contains("you did not allow it"), "\(declined.standardError)")
        #expect(try #require(agent.pinentry).confirmations.count == 1)
        // Nothing was made or used up: with a yes the same link binds.
        try #require(agent.pinentry).answer(.allow)
        let allowed = try agent.passkey(["invoke", "-"], input: link + "\n")
        #expect(allowed.status == 0, "\(allowed.standardError)")
    }

    @Test("with no terminal and no pinentry nothing can ask: the invoke is refused before the key is touched")
    func nothingToAskWithIsARefusal() throws {
        let (provider, agent) = try World.setUp(answer: nil)
        let identity = try provider.adminPOST(World.bi + "/identities", #"{"identity":{"display_name":"Carol","traits":{"username":"carol"}}}"#,
                                              scratch: agent.harness.home)
        let id = try #require(identity["id"] as? String)
        let job = try provider.adminPOST(World.bi + "/identities/\(id)/credential-binding-jobs", #"{"job":{"delivery_method":"RETURN"}}"#,
                                         scratch: agent.harness.home)
        let refused = try agent.harness.passkey(["invoke", "-"], standardInput: try #require(job["credential_binding_link"] as? String) + "\n",
                                                extraEnvironment: ["DISPLAY": "", "WAYLAND_DISPLAY": ""])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("confirmation"), "\(refused.standardError)")
    }

    @Test("a trusted application's IdP asking the key to sign or bind for another site's RP ID: refused, nothing asked or signed")
    func aForeignRelyingPartyIsRefusedThroughTheAgent() throws {
        // The devserver's BI realm now claims github.com; the person trusts it only for bi.passkey.test.
        let (provider, agent) = try World.setUp(devserver: ["--bi-rp-id", "github.com"])
        let identity = try provider.adminPOST(World.bi + "/identities", #"{"identity":{"display_name":"Dan","traits":{"username":"dan"}}}"#,
                                              scratch: agent.harness.home)
        let id = try #require(identity["id"] as? String)
        let job = try provider.adminPOST(World.bi + "/identities/\(id)/credential-binding-jobs", #"{"job":{"delivery_method":"RETURN"}}"#,
                                         scratch: agent.harness.home)
        let bind = try agent.passkey(["invoke", "-"], input: try #require(job["credential_binding_link"] as? String) + "\n")
        #expect(bind.status != 0)
        #expect(bind.standardError.contains("github.com"), "\(bind.standardError)")

        let authorize = provider.origin + World.bi + "/applications/a1/authorize?response_type=code&client_id=bi-okta"
            + "&redirect_uri=\(provider.origin)/oauth2/v1/authorize/callback&state=s1&scope=openid&nonce=n1"
        let invokeURL = try provider.location(of: authorize, scratch: agent.harness.home)
        let signIn = try agent.passkey(["invoke", "-"], input: invokeURL + "\n")
        #expect(signIn.status != 0)
        #expect(signIn.standardError.contains("sign for github.com"), "\(signIn.standardError)")
        #expect(try #require(agent.pinentry).confirmations.isEmpty, "the person is not even asked")
    }
}
