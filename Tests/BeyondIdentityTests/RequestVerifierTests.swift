import Base64
import BeyondIdentity
import FoundationEssentials
import JWTKit
import OpenID
import Testing
import TestSupport

/// `RequestVerifier` against a real identity provider on loopback, with
/// request JWTs signed here by jwt-kit: one test per refusal, and acceptance.
@Suite(.ownThreads) struct RequestVerifierTests {
    @Test func aGoodRequestIsAcceptedWithEveryField() async throws {
        let idp = try await TestIdentityProvider()
        let now = Clock.real()
        let request = try await idp.verifier().verify(try await idp.requestJWT(idp.claims(now: now))).request
        #expect(request.applicationName == "Beyond Identity Dev")
        #expect(request.applicationId == "a1")
        #expect(request.requestOrigin.ip == "127.0.0.1")
        #expect(request.requestOrigin.userAgent == "curl/8.5", "control characters are removed from shown text")
        #expect(request.baseURL == idp.baseURL)
        #expect([request.tenantId, request.realmId, request.transactionId, request.jti] == ["t1", "r1", "tx-1", "jti-1"])
        #expect(request.challenge == TestIdentityProvider.nonce)
        #expect(request.rpId == "bi.passkey.test" && request.origin == "https://bi.passkey.test")
        #expect(request.redirectURI == idp.redirectURI && request.state == "okta-state-1")
        #expect(request.expiresAt == now + 300)
        let options = request.assertionOptions
        #expect(options.challenge.base64URL == TestIdentityProvider.nonce)
        #expect(options.rpId == "bi.passkey.test")
        #expect(options.allowCredentials.map(\.id.bytes) == [[1, 2, 3, 4]])
        #expect(options.userVerification == .preferred)
    }

    @Test func anES256RequestIsAcceptedToo() async throws {
        let idp = try await TestIdentityProvider()
        _ = try await idp.verifier().verify(try await idp.requestJWT(idp.claims(), kid: "es-1"))
    }

    @Test func theKeySetIsFetchedOnceThenCached() async throws {
        let idp = try await TestIdentityProvider()
        let verifier = try idp.verifier()
        for _ in 0..<3 { _ = try await verifier.verify(try await idp.requestJWT(idp.claims())) }
        #expect(idp.requests(to: TestIdentityProvider.applicationPath + "/.well-known/jwks.json").count == 1)
    }

    @Test func anUnknownKidFetchesTheKeySetAgainOnce() async throws {
        let idp = try await TestIdentityProvider()
        let verifier = try idp.verifier()
        _ = try await verifier.verify(try await idp.requestJWT(idp.claims()))
        // es-2 is not published: one refetch, then unknownKey.
        await #expect(throws: InvokeError.unknownKey) { try await verifier.verify(try await idp.requestJWT(idp.claims(), kid: "es-2")) }
        let jwks = TestIdentityProvider.applicationPath + "/.well-known/jwks.json"
        #expect(idp.requests(to: jwks).count == 2)
        // The provider rotates in es-2: the refetch finds it.
        idp.state.withLock { _ = $0.published.insert("es-2") }
        _ = try await verifier.verify(try await idp.requestJWT(idp.claims(), kid: "es-2"))
        #expect(idp.requests(to: jwks).count == 3)
    }

    @Test func aKidThatNamesAnotherKeyIsABadSignature() async throws {
        let idp = try await TestIdentityProvider()
        // Signed by es-2 but naming es-1 in the header.
        let token = try await idp.requestJWT(idp.claims(), kid: "es-2")
        let parts = token.split(separator: ".").map(String.init)
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256","kid":"es-1","jku":"\#(idp.jku)"}"#.utf8))
        await #expect(throws: InvokeError.badSignature) { try await idp.verifier().verify(header + "." + parts[1] + "." + parts[2]) }
    }

    @Test func anUntrustedHostIsRefusedBeforeAnythingIsFetched() async throws {
        let idp = try await TestIdentityProvider()
        let token = try await idp.requestJWT(idp.claims())
        await #expect(throws: InvokeError.untrustedJWKSHost(idp.host)) {
            try await idp.verifier(trusting: ["127.0.0.2:\(idp.port)", "bi.example.com"]).verify(token)
        }
        #expect(idp.allRequests.isEmpty)
    }

    @Test func aHostThatOnlyStartsWithATrustedOneIsRefused() async throws {
        let idp = try await TestIdentityProvider()
        let token = try await idp.requestJWT(idp.claims())
        // "127.0.0.1:4567" is a prefix of "127.0.0.1:45678".
        let prefix = "127.0.0.1:" + String(String(idp.port).dropLast())
        await #expect(throws: InvokeError.untrustedJWKSHost(idp.host)) { try await idp.verifier(trusting: [prefix, "127.0.0.1"]).verify(token) }
        // A name that extends a trusted one.
        let longer = try await idp.requestJWT(idp.claims(), jku: "https://bi.example.com.evil.test/v1/.well-known/jwks.json")
        await #expect(throws: InvokeError.untrustedJWKSHost("bi.example.com.evil.test")) {
            try await idp.verifier(trusting: ["bi.example.com"]).verify(longer)
        }
        #expect(idp.allRequests.isEmpty)
    }

    @Test(arguments: ["http://PORT@evil.example/bi/.well-known/jwks.json", "http://evil.example@PORT/bi/.well-known/jwks.json",
                      "http://x:y@PORT/bi/.well-known/jwks.json"])
    func aUserNameTrickIsRefused(jku: String) async throws {
        let idp = try await TestIdentityProvider()
        let token = try await idp.requestJWT(idp.claims(), jku: jku.replacing("PORT", with: idp.host))
        await #expect {
            try await idp.verifier(trusting: [idp.host, "evil.example"]).verify(token)
        } throws: { error in
            guard case .untrustedJWKSHost(let shown) = error as? InvokeError else { return false }
            return !shown.contains("@") || shown.contains("…@")
        }
        #expect(idp.allRequests.isEmpty)
    }

    @Test func plainHTTPToAnotherHostIsRefusedEvenWhenTrusted() async throws {
        let idp = try await TestIdentityProvider()
        let token = try await idp.requestJWT(idp.claims(), jku: "http://bi.example.com/.well-known/jwks.json")
        await #expect {
            try await idp.verifier(trusting: ["bi.example.com"]).verify(token)
        } throws: { error in
            if case .untrustedJWKSHost = error as? InvokeError { return true }
            return false
        }
    }

    @Test func aTamperedPayloadIsABadSignature() async throws {
        let idp = try await TestIdentityProvider()
        let token = try await idp.requestJWT(idp.claims())
        let parts = token.split(separator: ".").map(String.init)
        var claims = idp.claims()
        claims.authn.redirect_uri = "https://evil.example/callback"
        let payload = Base64URL.encode(Array(try JSONEncoder().encode(claims)))
        await #expect(throws: InvokeError.badSignature) { try await idp.verifier().verify(parts[0] + "." + payload + "." + parts[2]) }
        await #expect(throws: InvokeError.badSignature) { try await idp.verifier().verify(parts[0] + "." + parts[1] + ".") }
    }

    @Test(arguments: ["none", "HS256", "RS384", "PS256"])
    func anAlgorithmOtherThanRS256OrES256IsRefused(alg: String) async throws {
        let idp = try await TestIdentityProvider()
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"\#(alg)","kid":"rs-1","jku":"\#(idp.jku)"}"#.utf8))
        let payload = Base64URL.encode(Array(try JSONEncoder().encode(idp.claims())))
        for signature in ["", "c2lnbmF0dXJl"] {
            await #expect(throws: InvokeError.algorithmNotAllowed) { try await idp.verifier().verify(header + "." + payload + "." + signature) }
        }
        #expect(idp.allRequests.isEmpty)
    }

    @Test func anExpiredRequestIsRefused() async throws {
        let idp = try await TestIdentityProvider()
        let now = Clock.real()
        var claims = idp.claims(now: now)
        claims.exp = Double(now - 61)
        await #expect(throws: InvokeError.requestExpired) { try await idp.verifier(now: { now }).verify(try await idp.requestJWT(claims)) }
        claims.exp = -1e300
        await #expect(throws: InvokeError.requestExpired) { try await idp.verifier(now: { now }).verify(try await idp.requestJWT(claims)) }
        // Within the 60 s of clock skew: accepted.
        claims.exp = Double(now - 30)
        _ = try await idp.verifier(now: { now }).verify(try await idp.requestJWT(claims))
        // A clock at the end of time does not trap.
        await #expect(throws: InvokeError.requestExpired) {
            try await idp.verifier(now: { .max }).verify(try await idp.requestJWT(idp.claims(now: now)))
        }
    }

    @Test func aRequestNotYetValidIsRefused() async throws {
        let idp = try await TestIdentityProvider()
        let now = Clock.real()
        var claims = idp.claims(now: now)
        claims.nbf = Double(now + 61)
        await #expect(throws: InvokeError.requestNotYetValid) { try await idp.verifier(now: { now }).verify(try await idp.requestJWT(claims)) }
        claims.nbf = 1e300
        await #expect(throws: InvokeError.requestNotYetValid) { try await idp.verifier(now: { now }).verify(try await idp.requestJWT(claims)) }
        claims.nbf = Double(now + 30)
        _ = try await idp.verifier(now: { now }).verify(try await idp.requestJWT(claims))
    }

    @Test func aWrongIssuerIsRefused() async throws {
        let idp = try await TestIdentityProvider()
        for issuer in [idp.application + "/", idp.baseURL, "https://beyondidentity.com" + TestIdentityProvider.applicationPath, ""] {
            var claims = idp.claims()
            claims.iss = issuer
            await #expect(throws: InvokeError.wrongIssuer) { try await idp.verifier().verify(try await idp.requestJWT(claims)) }
        }
        // A jku that is not …/.well-known/jwks.json has no issuer to match.
        let token = try await idp.requestJWT(idp.claims(), jku: idp.application + "/keys")
        await #expect(throws: InvokeError.self) { try await idp.verifier().verify(token) }
    }

    @Test func aWrongVerbIsRefused() async throws {
        let idp = try await TestIdentityProvider()
        for verb in ["bind", "Authenticate", ""] {
            var claims = idp.claims()
            claims.verb = verb
            await #expect(throws: InvokeError.wrongVerb) { try await idp.verifier().verify(try await idp.requestJWT(claims)) }
        }
    }

    @Test func unusableURLsAndIdsInsideAreRefused() async throws {
        let idp = try await TestIdentityProvider()
        var mutations: [(inout RequestJWTClaims) -> Void] = [
            { $0.authn.base_url = "http://evil.example/bi" },
            { $0.authn.base_url = "http://127.0.0.1:1@evil.example/bi" },
            { $0.authn.redirect_uri = "javascript:alert(1)" },
            { $0.authn.action.prove.origin = "https://bi.passkey.test/path" },
            { $0.authn.action.prove.rp_id = "passkey.test.evil" },
            { $0.authn.action.prove.transaction_id = "../../admin" },
            { $0.authn.tid = "t1?x=1" },
            { $0.authn.action.prove.nonce = "short" },
            { $0.authn.action.prove.allow_credentials = ["not base64url!"] },
            { $0.authn.state = "" },
        ]
        mutations.append { $0.jti = "" }
        for mutate in mutations {
            var claims = idp.claims()
            mutate(&claims)
            await #expect {
                try await idp.verifier().verify(try await idp.requestJWT(claims))
            } throws: { error in
                guard case .malformedRequest(let why) = error as? InvokeError else { return false }
                return !why.contains(TestIdentityProvider.nonce)
            }
        }
    }

    @Test(arguments: ["", "a.b", "a.b.c.d.e", "!!!.e30.c2ln", String(repeating: "a", count: 20_000)])
    func textThatIsNotAJWTIsMalformed(token: String) async throws {
        let idp = try await TestIdentityProvider()
        await #expect {
            try await idp.verifier().verify(token)
        } throws: { error in
            if case .malformedRequest = error as? InvokeError { return true }
            return false
        }
    }

    @Test func aJWTWithoutJkuOrKidIsMalformed() async throws {
        let idp = try await TestIdentityProvider()
        let payload = Base64URL.encode(Array(try JSONEncoder().encode(idp.claims())))
        for header in [#"{"alg":"RS256","kid":"rs-1"}"#, #"{"alg":"RS256","jku":"\#(idp.jku)"}"#] {
            let token = Base64URL.encode(Array(header.utf8)) + "." + payload + ".c2ln"
            await #expect {
                try await idp.verifier().verify(token)
            } throws: { error in
                if case .malformedRequest = error as? InvokeError { return true }
                return false
            }
        }
    }

    @Test func anUnreachableKeySetIsANetworkError() async throws {
        let idp = try await TestIdentityProvider()
        let token = try await idp.requestJWT(idp.claims())
        let verifier = try idp.verifier()
        idp.stop()
        await #expect {
            try await verifier.verify(token)
        } throws: { error in
            if case .network = error as? InvokeError { return true }
            return false
        }
    }
}
