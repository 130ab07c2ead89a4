import Harness
import OpenID
import Testing
import TestSupport

/// The authorization URL, and reading the redirect in the order that keeps
/// an attacker's redirect from being trusted: state, error, iss, code.
@Suite(.ownThreads) struct AuthorizationRequestTests {
    static let metadata = ProviderMetadata(
        issuer: "https://id.example.com/oauth2/default",
        authorizationEndpoint: "https://id.example.com/oauth2/default/v1/authorize?tenant=a",
        tokenEndpoint: "https://id.example.com/oauth2/default/v1/token",
        jwksURI: "https://id.example.com/oauth2/default/v1/keys",
        authorizationResponseIssParameterSupported: true)
    static let lenient = ProviderMetadata(
        issuer: "https://id.example.com", authorizationEndpoint: "https://id.example.com/authorize",
        tokenEndpoint: "https://id.example.com/token", jwksURI: "https://id.example.com/jwks")

    let request = AuthorizationRequest(redirectURI: "http://127.0.0.1:8400/callback")

    private func redirect(_ query: String) -> String { "http://127.0.0.1:8400/callback?" + query }
    private var issuer: String { "iss=https%3A%2F%2Fid.example.com%2Foauth2%2Fdefault" }

    @Test func theURLCarriesPKCEStateNonceAndKeepsTheEndpointsQuery() throws {
        let url = request.url(metadata: Self.metadata, clientId: "cli", scopes: ["email", "offline_access"],
                              extra: [("login_hint", "alice@example.com"), ("state", "forced")])
        #expect(url.hasPrefix("https://id.example.com/oauth2/default/v1/authorize?tenant=a&response_type=code&"))
        let fields = LoopbackHTTPServer.formFields(String(url.split(separator: "?", maxSplits: 1)[1]))
        #expect(fields["client_id"] == "cli")
        #expect(fields["redirect_uri"] == "http://127.0.0.1:8400/callback")
        #expect(fields["scope"] == "openid email offline_access")
        #expect(fields["state"] == request.state)
        #expect(fields["nonce"] == request.nonce)
        #expect(fields["code_challenge"] == request.pkce.challenge)
        #expect(fields["code_challenge_method"] == "S256")
        #expect(fields["login_hint"] == "alice@example.com")
        #expect(url.split(separator: "&").filter { $0.hasPrefix("state=") }.count == 1)  // `extra` cannot replace state
    }

    @Test func everyRequestHasItsOwnSecrets() {
        let other = AuthorizationRequest(redirectURI: request.redirectURI)
        #expect(request.state != other.state)
        #expect(request.nonce != other.nonce)
        #expect(request.state.count == 43)
        #expect(!"\(request)".contains(request.state))
        #expect(!"\(request)".contains(request.pkce.verifier))
    }

    @Test func theCodeComesBackWhenEverythingMatches() throws {
        let code = try request.code(fromRedirect: redirect("code=c%2B1+x&state=\(request.state)&\(issuer)"), metadata: Self.metadata)
        #expect(code == "c+1 x")
        // Pasted with blanks around it, or just the listener's request target.
        #expect(try request.code(fromRedirect: "  /callback?state=\(request.state)&code=abc\n", metadata: Self.lenient) == "abc")
    }

    @Test func aWrongOrMissingStateIsRefusedBeforeAnythingElse() {
        #expect(throws: OpenIDError.stateMismatch) {
            try request.code(fromRedirect: redirect("code=abc&state=other&\(issuer)"), metadata: Self.metadata)
        }
        #expect(throws: OpenIDError.stateMismatch) {
            try request.code(fromRedirect: redirect("code=abc&\(issuer)"), metadata: Self.metadata)
        }
        // An attacker's error or issuer is not believed either: state first.
        #expect(throws: OpenIDError.stateMismatch) {
            try request.code(fromRedirect: redirect("error=access_denied&iss=https%3A%2F%2Fevil.example"), metadata: Self.metadata)
        }
        // Two states: which one would a check see? Neither is trusted.
        #expect(throws: OpenIDError.stateMismatch) {
            try request.code(fromRedirect: redirect("code=abc&state=\(request.state)&state=x&\(issuer)"), metadata: Self.metadata)
        }
    }

    /// Any web page can open a private-use-scheme (or loopback) callback URL
    /// with a query nobody can read: it must not end the login in flight.
    /// Its state cannot be read, so it is a state mismatch, and the login
    /// waits on, exactly as for another login's state.
    @Test func anUnreadableRedirectIsAStateMismatch() {
        for unreadable in [redirect("%zz"), redirect("state=\(request.state)&code=%zz"), redirect("%FF%FE=1"),
                           "com.example.app:/callback?%zz", "just-a-code",
                           redirect("state=" + String(repeating: "a", count: 20_000))] {
            #expect(throws: OpenIDError.stateMismatch, "\(unreadable.prefix(60))") {
                try request.code(fromRedirect: unreadable, metadata: Self.metadata)
            }
        }
    }

    @Test func aRefusalIsReportedWithItsCode() {
        #expect(throws: OpenIDError.authorizationRefused(code: "access_denied", description: "The user said no")) {
            try request.code(fromRedirect: redirect("error=access_denied&error_description=The+user+said+no&state=\(request.state)&\(issuer)"),
                             metadata: Self.metadata)
        }
    }

    /// RFC 9207: a present `iss` must be the issuer; an absent one is
    /// refused when the provider says it always sends it.
    @Test func theIssuerParameterIsChecked() throws {
        #expect(throws: OpenIDError.issuerMismatch(expected: Self.metadata.issuer, got: "https://evil.example")) {
            try request.code(fromRedirect: redirect("code=abc&state=\(request.state)&iss=https%3A%2F%2Fevil.example"), metadata: Self.metadata)
        }
        #expect(throws: OpenIDError.missingIssuer) {
            try request.code(fromRedirect: redirect("code=abc&state=\(request.state)"), metadata: Self.metadata)
        }
        #expect(try request.code(fromRedirect: redirect("code=abc&state=\(request.state)"), metadata: Self.lenient) == "abc")
    }

    @Test func aMissingOrDoubledCodeIsRefused() {
        #expect(throws: OpenIDError.missingCode) {
            try request.code(fromRedirect: redirect("state=\(request.state)&\(issuer)"), metadata: Self.metadata)
        }
        #expect(throws: OpenIDError.self) {
            try request.code(fromRedirect: redirect("code=a&code=b&state=\(request.state)&\(issuer)"), metadata: Self.metadata)
        }
        #expect(throws: OpenIDError.self) {
            try request.code(fromRedirect: "just-a-code", metadata: Self.metadata)
        }
        #expect(throws: OpenIDError.self) {
            try request.code(fromRedirect: redirect("code=%zz&state=\(request.state)"), metadata: Self.metadata)
        }
    }

    @Test func errorsNeverShowTheSecrets() {
        let errors: [OpenIDError] = [.stateMismatch, .missingIssuer, .missingCode, .invalidGrant(description: nil),
                                     .idToken(.nonce), .authorizationRefused(code: "access_denied", description: nil)]
        for error in errors {
            #expect(!error.description.contains(request.state))
            #expect(!error.description.contains(request.nonce))
            #expect(!error.description.contains(request.pkce.verifier))
        }
    }
}
