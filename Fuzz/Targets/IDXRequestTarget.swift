import Base64
import FoundationEssentials
import IDXDevServer
import OAuthDevServer
import WebAuthn

extension FuzzTarget {
    /// What an IDX client sends the devserver's Okta Identity Engine subset:
    /// JSON bodies of introspect and the remediations, the base64 or
    /// base64url WebAuthn fields inside them, and the interact form.
    /// Beyond not crashing: decoded binary fields re-encode to the same
    /// bytes; base64url text decodes as the strict WebAuthn decoder does; an
    /// accepted interact form has PKCE and state.
    static let idxRequest = FuzzTarget(
        name: "idx-request",
        summary: "text as an IDX remediation body (JSON), its base64/base64url credential fields, and a /v1/interact form",
        maximumLength: 8192,
        seeds: {
            [
                Seed("introspect", text: #"{"interactionHandle":"BEhBiG3udfRv8l2D6Orym_gfhqVcJfaZ1nMeJuFhKWE"}"#),
                Seed("identify", text: #"{"identifier":"alice","rememberMe":false,"stateHandle":"02.id.abc"}"#),
                Seed("select", text: #"{"authenticator":{"id":"aut1webauthn0devsrvr","methodType":"webauthn"},"stateHandle":"02.id.abc"}"#),
                Seed("enroll", text: #"{"credentials":{"attestation":"o2NmbXRkbm9uZQ==","clientData":"eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0"},"stateHandle":"s"}"#),
                Seed("challenge", text: #"{"credentials":{"authenticatorData":"SZYN5YgO","clientData":"e30=","signatureData":"MEUCIQ-_"},"stateHandle":"s"}"#),
                Seed("password", text: #"{"credentials":{"passcode":"correct horse"},"stateHandle":"s"}"#),
                Seed("interact", text: "client_id=cli&scope=openid+offline_access&redirect_uri=http%3A%2F%2F127.0.0.1%3A49152%2Fcallback"
                     + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&state=s&nonce=n"),
            ]
        },
        run: { bytes in
            if let body = try? IDXWire.parseBody(bytes) {
                let credentials = body.credentials
                for text in [credentials?.attestation, credentials?.clientData, credentials?.authenticatorData,
                             credentials?.signatureData, body.stateHandle].compactMap({ $0 }) {
                    try checkBinary(text)
                }
            }
            try checkBinary(String(decoding: bytes, as: UTF8.self))
            if let accepted = IDXWire.interaction(form: bytes, clients: OAuthClients([])) {
                try expect(accepted.codeChallenge.utf8.count == 43 && !accepted.state.isEmpty,
                           "an interact request without PKCE or state was accepted")
            }
        })

    private static func checkBinary(_ text: String) throws {
        guard let decoded = IDXWire.binary(text) else { return }
        try expect(IDXWire.binary(Base64URL.encode(decoded)) == decoded, "base64url re-encoding does not decode to the same bytes")
        try expect(IDXWire.binary(Data(decoded).base64EncodedString()) == decoded, "base64 re-encoding does not decode to the same bytes")
        if !text.contains("+"), !text.contains("/") {
            try expect(Base64URL.decode(text, padding: .tolerated) == decoded, "base64url text decodes differently from the WebAuthn decoder")
        }
    }
}
