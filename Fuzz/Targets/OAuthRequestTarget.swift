import BeyondIdentityDevServer
import DevServerBase
import FoundationEssentials
import OAuthDevServer
import URLPolicy

extension FuzzTarget {
    /// What a browser or client sends the devserver's authorization server:
    /// form bodies and query strings, redirect URIs, authorization requests.
    /// Beyond not crashing: parsed fields survive re-encoding; a redirect URI
    /// accepted for a registered loopback one connects to this machine only
    /// (judged by `LoopbackOracle`, which uses Foundation's URL) and has the
    /// registered path; a URI passes registration exactly when it can be registered.
    static let oauthRequest = FuzzTarget(
        name: "oauth-request",
        summary: "text as an x-www-form-urlencoded body, an /v1/authorize query and a redirect URI of the devserver's authorization server",
        maximumLength: 4096,
        seeds: {
            [
                Seed("authorize", text: "response_type=code&client_id=cli&redirect_uri=http%3A%2F%2F127.0.0.1%3A49152%2Fcallback"
                     + "&scope=openid+offline_access&state=s&nonce=n&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
                     + "&code_challenge_method=S256"),
                Seed("token", text: "grant_type=refresh_token&client_id=cli&refresh_token=abc&scope=openid%20email"),
                Seed("repeated", text: "client_id=cli&client_id=cli"),
                Seed("redirect-loopback-v6", text: "http://[::1]:8080/callback"),
                Seed("redirect-userinfo", text: "http://127.0.0.1@evil.example/callback"),
                Seed("redirect-private-use", text: "com.example.app:/callback"),
                Seed("bi-basic", text: "Basic Ymktb2t0YTpiaS1va3RhLXNlY3JldA=="),
                Seed("bi-prove-path", text: "/bi/v1/tenants/t1/realms/r1/transactions/0a1b/prove"),
            ]
        },
        run: { bytes in
            if let fields = try? FormFields(parsing: bytes) {
                let again = try? FormFields(parsing: Array(PercentEncoding.query(fields.values.sorted { $0.key < $1.key }).utf8))
                try expect(again?.values == fields.values, "form fields do not survive re-encoding")
            }
            let text = String(decoding: bytes, as: UTF8.self)
            for registered in ["http://127.0.0.1/callback", "http://[::1]/callback"] {
                guard let uri = RedirectURI(registered: registered), uri.matches(text) else { continue }
                try expect(LoopbackOracle.connectsToThisMachineOnly(text),
                           "redirect URI \(text.debugDescription) matches \(registered) but leaves this machine")
                try expect(URL(string: text)?.path() == "/callback", "redirect URI \(text.debugDescription) has another path")
            }
            try expect((RedirectURI.registrationProblem(text) == nil) == (RedirectURI(registered: text) != nil),
                       "registration check and registration disagree on \(text.debugDescription)")
            // The BI-like IdP's client_secret_basic header and path segments.
            if let (id, secret) = ClientCredentials.basicCredentials(text) {
                try expect(id.utf8.count + secret.utf8.count <= 1024, "Basic credentials longer than their header")
            }
            if let segment = BIWire.pathSegment(text, after: "/bi/v1/tenants/t1/realms/r1/transactions/", before: "/prove") {
                try expect(!segment.isEmpty && !segment.contains("/"), "path segment \(segment.debugDescription) is empty or has a slash")
            }
            let clients = OAuthClients([])
            if let request = try? ValidatedAuthorizationRequest.parse({ () throws(FormFields.Problem) in try FormFields(parsing: bytes) },
                                                             clients: clients) {
                try expect(request.codeChallenge.utf8.count == 43 && !request.state.isEmpty,
                           "an authorization request without PKCE or state was accepted")
            }
        })
}
