import Foundation
import Testing
import TestSupport

/// `passkey login` against an OpenID provider nobody here wrote:
/// oidc-provider-mock 0.3.4 (PyPI; Flask + Authlib). It offers no PKCE in
/// its discovery document (we send S256 anyway), no RFC 9207 `iss`, an
/// RS256 key without `alg` in its key set, an array `aud`, no refresh-token
/// rotation and no revocation endpoint.
@Suite(.ownThreads) struct LoginWithOIDCProviderMockTests {
    @Test("browser login, a refresh, and a logout that reports the missing revocation endpoint")
    func loginRefreshLogout() throws {
        let provider = try LoginProvider.oidcProviderMock(["--user", "alice@example.test", "-e", "30"])
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        // The mock authenticates every client at its token endpoint with a
        // secret (client_secret_post or _basic): an unregistered client id
        // takes any. It is read from stdin, never from the command line.
        let login = try agent.harness.passkey(
            ["login", "mock", "--issuer", provider.issuer, "--client-id", "passkey-cli", "--flow", "browser",
             "--client-secret-stdin"], standardInput: "mock-secret-1\n",
            extraEnvironment: provider.browserEnvironment(user: "alice@example.test"), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")
        #expect(login.standardOutput.contains("alice@example.test"))

        let first = try agent.passkey(["token", "get", "mock", "--min-valid", "0"])
        #expect(first.status == 0, "\(first.standardError)")
        // The login's tokens live 30 s (-e 30): 60 s of validity needs a
        // refresh — with client_secret_basic, the only client authentication
        // the mock's refresh grant takes — whose new ID token is checked
        // against the first (same iss, sub, aud).
        let refreshed = try agent.passkey(["token", "get", "mock", "--min-valid", "60", "--format", "json"])
        #expect(refreshed.status == 0, "\(refreshed.standardError)")
        let answer = try JSONSerialization.jsonObject(with: Data(refreshed.standardOutput.utf8)) as? [String: Any]
        #expect(answer?["refreshed"] as? Bool == true)
        #expect(answer?["accessToken"] as? String != first.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))

        #expect(agent.filesContaining(["mock-secret-1"]).isEmpty, "the client secret is only in the vault")

        let logout = try agent.passkey(["logout", "mock"])
        #expect(logout.status == 0, "\(logout.standardError)")
        #expect(logout.standardError.contains("no revocation endpoint"))
        #expect(logout.standardOutput.contains("Removed \"mock\""))
        #expect(try agent.passkey(["token", "get", "mock"]).standardError.contains("no tokens are stored"))
    }
}
