import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Okta + Beyond Identity invoke URLs end to end: the devserver's Okta-like
/// AS routes `idp=` to its Beyond-Identity-like IdP, which sends the browser
/// to the invoke URL; the scheme handler's command (`passkey invoke URL`)
/// hands it to the agent, which proves the passkey on the software
/// authenticator, follows Okta's callback and lets the waiting
/// `passkey login` store the tokens.
@Suite(.ownThreads) struct InvokeThroughAgentTests {
    static let scheme = "io.github.passkey-agent"
    static let bi = "/bi/v1/tenants/t1/realms/r1"

    /// The devserver, and an agent whose config trusts the devserver's BI
    /// keys and uses the software authenticator by default — as the
    /// handler runs it, with no flags.
    /// The person at the desktop answers pinentry's confirmation with `answer`.
    static func setUp(trusting: Bool = true, devserver arguments: [String] = [], answer: ScriptedPinentry.Answer? = .allow,
                      application: String? = nil) throws -> (LoginProvider, VaultAgent) {
        let provider = try LoginProvider.devserver(["--oauth-client", "cli-app=\(scheme):/callback"] + arguments)
        let agent = try VaultAgent(extraEnvironment: ["PASSKEY_PROGRAM": try ProgramPaths.built("passkey")], person: answer)
        let config = "[device]\ndefault = \"virtual\"\n\n" + (application ?? (trusting ? Self.trustedApplication(provider) : ""))
        try FileManager.default.createDirectory(atPath: agent.harness.home + "/config/passkey-agent", withIntermediateDirectories: true)
        let path = agent.harness.home + "/config/passkey-agent/config.toml"
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        try agent.start()
        try agent.initializeVault()
        return (provider, agent)
    }

    /// config.toml's table trusting the devserver's BI application, for its RP ID.
    static func trustedApplication(_ provider: LoginProvider, rpIds: [String] = ["bi.passkey.test"]) -> String {
        "[invoke.application.dev]\nissuer = \"\(provider.origin)\(bi)/applications/a1\"\n"
            + "rp-ids = [\(rpIds.map { "\"\($0)\"" }.joined(separator: ", "))]\n"
    }

    /// An identity in the BI realm with a passkey bound on the software key through a binding link.
    @discardableResult
    static func bindAlice(_ provider: LoginProvider, _ agent: VaultAgent) throws -> String {
        let identity = try provider.adminPOST(bi + "/identities", #"{"identity":{"display_name":"Alice","traits":{"username":"alice","primary_email_address":"alice@example.test"}}}"#,
                                              scratch: agent.harness.home)
        let id = try #require(identity["id"] as? String)
        let job = try provider.adminPOST(bi + "/identities/\(id)/credential-binding-jobs", #"{"job":{"delivery_method":"RETURN"}}"#,
                                         scratch: agent.harness.home)
        let link = try #require(job["credential_binding_link"] as? String)
        let bound = try agent.passkey(["invoke", "-"], input: link)
        #expect(bound.status == 0, "\(bound.standardError)")
        #expect(bound.standardOutput.contains("Bound a passkey for Alice"))
        return link
    }

    /// The environment under which `passkey login`'s browser follows the
    /// redirects and runs the scheme handler's command.
    static func handlerBrowser() -> [String: String] {
        ["BROWSER": "python3 \(LoginProvider.consentScript) --follow", "DISPLAY": ":99"]
    }

    @Test("bind a passkey, then log in at Okta routed to the BI IdP: the invoke URL goes through the handler's command")
    func bindThenLogInThroughBI() throws {
        let (provider, agent) = try Self.setUp()
        let link = try Self.bindAlice(provider, agent)
        let reused = try agent.passkey(["invoke", "-"], input: link)
        #expect(reused.status != 0, "a binding link binds once")

        let login = try agent.harness.passkey(
            ["login", "okta", "--issuer", provider.issuer, "--client-id", "cli", "--idp", "0oa-bi-dev", "--flow", "browser"],
            extraEnvironment: Self.handlerBrowser(), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")
        let token = try agent.passkey(["token", "get", "okta"])
        #expect(token.status == 0, "\(token.standardError)")
        let claims = jwtClaims(token.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(claims?["sub"] as? String == "alice")
        #expect(claims?["iss"] as? String == provider.issuer, "an access token of the Okta-like server")
    }

    @Test("a private-use-scheme redirect arrives through the handler; a wrong state is refused and the login waits on")
    func privateUseRedirect() throws {
        let (provider, agent) = try Self.setUp()
        try Self.bindAlice(provider, agent)
        let login = try RunningProcess(try ProgramPaths.built("passkey"),
                                       ["login", "app", "--issuer", provider.issuer, "--client-id", "cli-app", "--idp", "0oa-bi-dev",
                                        "--redirect-uri", "\(Self.scheme):/callback", "--flow", "paste"],
                                       environment: agent.harness.environment, directory: agent.harness.home, name: "login-app")
        try login.waitUntil("the authorization URL is shown", timeout: 30) { login.standardError.contains("Paste that whole address") }
        let url = try #require(login.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(provider.issuer + "/v1/authorize?") })

        let wrong = try agent.passkey(["invoke", "-"], input: "\(Self.scheme):/callback?code=forged&state=not-this-login")
        #expect(wrong.status != 0)
        #expect(wrong.standardError.contains("another login"), "\(wrong.standardError)")
        #expect(login.poll() == nil, "the login still waits")

        // The browser: Okta → BI → the invoke URL, handed to `passkey invoke`;
        // the agent proves the passkey and Okta redirects to the app's scheme.
        let handed = try ProcessResult.run("/usr/bin/env", ["python3", LoginProvider.consentScript, "--follow", url], standardInput: nil,
                                           environment: agent.harness.environment, scratch: agent.harness.home, timeout: 60)
        #expect(handed.status == 0, "\(handed.standardError)")
        #expect(login.waitForExit(timeout: 60) == 0, "\(login.standardError)")
        #expect(try agent.passkey(["token", "get", "app"]).status == 0)
    }

    @Test("invoke refuses: an untrusted key-set host, a tampered request, a replayed transaction, a URL no login waits for")
    func refusals() throws {
        let (provider, agent) = try Self.setUp()
        try Self.bindAlice(provider, agent)
        // The test stands in for Okta: it asks BI for a sign-in directly.
        let authorize = provider.origin + Self.bi + "/applications/a1/authorize?response_type=code&client_id=bi-okta"
            + "&redirect_uri=\(provider.origin)/oauth2/v1/authorize/callback&state=s1&scope=openid&nonce=n1"
        let invokeURL = try provider.location(of: authorize, scratch: agent.harness.home)
        #expect(invokeURL.hasPrefix("\(Self.scheme):/invoke/bi-authenticate?request="))
        let check = try agent.passkey(["invoke", "--check", "-"], input: invokeURL)
        #expect(check.status == 0 && check.standardOutput.contains("authenticate"))
        #expect(try agent.passkey(["invoke", "--check", "https://example.org/"]).status == 1)

        // Tampered: one claim changed, the signature kept.
        let jwt = String(invokeURL.split(separator: "=", maxSplits: 1)[1])
        var parts = jwt.split(separator: ".").map(String.init)
        var payload = try #require(jwtClaims(jwt))
        payload["app"] = ["id": "a1", "display_name": "Your Bank"]
        parts[1] = try JSONSerialization.data(withJSONObject: payload).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let tampered = try agent.passkey(["invoke", "-"], input: invokeURL.replacingOccurrences(of: jwt, with: parts.joined(separator: ".")))
        #expect(tampered.status != 0)
        #expect(tampered.standardError.lowercased().contains("signature"), "\(tampered.standardError)")

        // Proved once (Okta then refuses the unknown state, so no login ends) — and never twice.
        _ = try agent.passkey(["invoke", "-"], input: invokeURL)
        let replayed = try agent.passkey(["invoke", "-"], input: invokeURL)
        #expect(replayed.status != 0)
        #expect(replayed.standardError.contains("used"), "\(replayed.standardError)")

        let nobody = try agent.passkey(["invoke", "-"], input: "\(Self.scheme):/callback?code=c&state=s")
        #expect(nobody.status != 0)
        #expect(nobody.standardError.contains("no login in progress"), "\(nobody.standardError)")

        // Trust is config: an agent that does not list the devserver refuses its requests.
        let (other, untrusting) = try Self.setUp(trusting: false)
        let otherURL = try other.location(of: other.origin + Self.bi + "/applications/a1/authorize?response_type=code&client_id=bi-okta"
                                            + "&redirect_uri=\(other.origin)/oauth2/v1/authorize/callback&state=s1&scope=openid&nonce=n1",
                                          scratch: untrusting.harness.home)
        let untrusted = try untrusting.passkey(["invoke", "-"], input: otherURL)
        #expect(untrusted.status != 0)
        #expect(untrusted.standardError.contains("trusted"), "\(untrusted.standardError)")
    }

    @Test("a redirect URI that is not a private-use scheme is refused before anything is contacted")
    func webRedirectURIRefused() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        for uri in ["https://app.example/callback", "nodots:/callback", "com.example.app:/cb?x=1", "http://127.0.0.1:9/cb"] {
            let login = try agent.passkey(["login", "w", "--issuer", "http://127.0.0.1:1/oauth2/default", "--client-id", "c",
                                           "--redirect-uri", uri])
            #expect(login.status != 0)
            #expect(login.standardError.contains("private-use scheme"), "\(uri): \(login.standardError)")
        }
    }
}
