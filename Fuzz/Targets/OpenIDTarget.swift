import Base64
import FoundationEssentials
import OpenID
import Tokens
import URLPolicy

extension FuzzTarget {
    /// What an OpenID provider (or whoever plays one) hands `passkey login`:
    /// the redirect back from the browser, the discovery document, the
    /// device authorization answer, a JWKS, and an ID token's header and
    /// claims. Beyond not crashing: an accepted redirect had our state and,
    /// for a provider that promises `iss`, our issuer; an accepted discovery
    /// document names our issuer and only usable endpoints, and survives the
    /// cache's encoding; an accepted device answer shows only printable text,
    /// waits 1 s to an hour, and keeps its expiry within the bounded range.
    static let openID = FuzzTarget(
        name: "openid",
        summary: "text as a login redirect (AuthorizationRequest.code), JSON as a discovery document, device authorization answer and JWKS, and as an ID token's header and claims",
        maximumLength: 8192,
        seeds: {
            let request = OpenIDSeeds.request
            let redirect = request.redirectURI + "?code=abc&state=\(request.state)&iss=https%3A%2F%2Fid.example.com"
            let claims = #"{"iss":"https://id.example.com","sub":"alice","aud":["cli","api"],"azp":"cli","exp":1900000000,"iat":1700000000,"nonce":"n","email":"a@example.com"}"#
            let token = Base64URL.encode(Array(#"{"alg":"ES256","kid":"k1"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".c2ln"
            return [
                Seed("redirect", text: redirect),
                Seed("redirect-refused", text: "/callback?error=access_denied&error_description=no+way&state=\(request.state)"),
                Seed("discovery", text: #"{"issuer":"https://id.example.com","authorization_endpoint":"https://id.example.com/authorize","#
                     + #""token_endpoint":"https://id.example.com/token","jwks_uri":"https://id.example.com/keys","#
                     + #""device_authorization_endpoint":"http://127.0.0.1:8080/device","code_challenge_methods_supported":["S256"],"#
                     + #""authorization_response_iss_parameter_supported":true}"#),
                Seed("device", text: #"{"device_code":"d","user_code":"BCDF-GHJK","verification_uri":"https://id.example.com/device","#
                     + #""verification_uri_complete":"https://id.example.com/device?c=1","expires_in":1e300,"interval":"9223372036854775807"}"#),
                Seed("jwks", text: #"{"keys":[{"kty":"EC","crv":"P-256","kid":"k1","use":"sig","x":"AQ","y":"AQ"},"#
                     + #"{"kty":"RSA","kid":"k2","n":"AQAB","e":"AQAB"},{"kty":"oct","k":"c2VjcmV0"}]}"#),
                Seed("id-token", text: token),
                Seed("claims", text: claims),
            ]
        },
        run: { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            try OpenIDSeeds.redirect(text)
            try OpenIDSeeds.discovery(bytes)
            try OpenIDSeeds.device(bytes)
            if let keys = JSONWebKeySet(bytes) {
                for alg in ["ES256", "RS256", "EdDSA"] {
                    _ = keys.candidates(kid: "k1", alg: alg)
                    _ = keys.candidates(kid: nil, alg: alg)
                }
            }
            // The text as a whole token, and the bytes as its header or its claims.
            _ = try? IDTokenClaims(previouslyValidated: text)
            let encoded = Base64URL.encode(bytes)
            _ = try? IDTokenClaims(previouslyValidated: encoded + ".e30.c2ln")
            _ = try? IDTokenClaims(previouslyValidated: "eyJhbGciOiJFUzI1NiJ9." + encoded + ".c2ln")
        })
}

/// The fixed side of the openid target: our request, our issuer, and the checks.
enum OpenIDSeeds {
    static let issuer = "https://id.example.com"
    static let request = AuthorizationRequest(redirectURI: "http://127.0.0.1:8400/callback", state: "st4te", nonce: "n",
                                              pkce: PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))

    static func metadata(issParameter: Bool) -> ProviderMetadata {
        ProviderMetadata(issuer: issuer, authorizationEndpoint: issuer + "/authorize", tokenEndpoint: issuer + "/token",
                         jwksURI: issuer + "/keys", authorizationResponseIssParameterSupported: issParameter)
    }

    static func redirect(_ text: String) throws {
        for strict in [false, true] {
            guard let code = try? request.code(fromRedirect: text, metadata: metadata(issParameter: strict)) else { continue }
            try expect(!code.isEmpty, "an empty code was accepted")
            try expect(text.contains("state="), "a redirect without state was accepted")
            if strict { try expect(text.contains("iss="), "a redirect without iss was accepted from a provider that promises it") }
        }
    }

    static func discovery(_ bytes: [UInt8]) throws {
        guard let metadata = try? ProviderMetadata(discoveryDocument: bytes, issuer: issuer, url: issuer) else { return }
        try expect(metadata.issuer == issuer, "a document for another issuer was accepted")
        for endpoint in [metadata.authorizationEndpoint, metadata.tokenEndpoint, metadata.jwksURI]
            + [metadata.revocationEndpoint, metadata.deviceAuthorizationEndpoint, metadata.userinfoEndpoint,
               metadata.endSessionEndpoint].compactMap({ $0 }) {
            try expect(Endpoint.problem(endpoint) == nil, "the endpoint \(endpoint.debugDescription) was accepted")
        }
        let cached = try? JSONDecoder().decode(ProviderMetadata.self, from: JSONEncoder().encode(metadata))
        try expect(cached == metadata, "metadata does not survive the cache's encoding")
    }

    static func device(_ bytes: [UInt8]) throws {
        for now: Int64 in [0, 1_700_000_000, .max, .min] {
            guard let device = try? DeviceAuthorization(answer: bytes, url: issuer, now: now) else { continue }
            try expect(device.userCode.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control },
                       "a user code with control characters was accepted")
            try expect((1...3600).contains(device.interval), "an interval of \(device.interval) s was accepted")
            try expect((-OutsideSeconds.latest...OutsideSeconds.latest).contains(device.expiresAt),
                       "an expiry beyond the bounded range: \(device.expiresAt)")
            try expect(Endpoint.problem(device.verificationURI) == nil, "the verification URI was accepted unchecked")
        }
    }
}
