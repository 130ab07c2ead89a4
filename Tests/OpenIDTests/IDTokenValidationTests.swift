import Base64
import FoundationEssentials
import JWTKit
import OpenID
import Testing
import TestSupport

/// OpenID Connect Core §3.1.3.7 (and §12.2), each check against tokens
/// jwt-kit signs with the test provider's keys, keys fetched over HTTP.
@Suite(.ownThreads) struct IDTokenValidationTests {
    let server: TestProvider
    let validator: IDTokenValidator

    init() async throws {
        server = try await TestProvider()
        validator = IDTokenValidator(provider: server.provider(), clientId: TestProvider.clientId)
    }

    private func refusal(_ token: String, nonce: String? = "n-1", by validator: IDTokenValidator? = nil) async -> IDTokenProblem? {
        do {
            _ = try await (validator ?? self.validator).validate(token, nonce: nonce)
            return nil
        } catch .idToken(let problem) {
            return problem
        } catch {
            Issue.record("not an ID token problem: \(error)")
            return nil
        }
    }

    @Test func anES256TokenIsAccepted() async throws {
        let claims = try await validator.validate(try await server.idToken(server.claims()), nonce: "n-1")
        #expect(claims.issuer == server.issuer)
        #expect(claims.subject == "alice")
        #expect(claims.audience == [TestProvider.clientId])
        #expect(claims.email == "alice@example.com")
    }

    /// oidc-provider-mock publishes its RSA key without `alg`: the header's
    /// (allowed) alg is used with it.
    @Test func anRS256TokenFromAKeyWithoutAlgIsAccepted() async throws {
        let claims = try await validator.validate(try await server.idToken(server.claims(), kid: "rs-1"), nonce: "n-1")
        #expect(claims.subject == "alice")
    }

    @Test func anotherAudienceIsRefused() async throws {
        var claims = server.claims()
        claims.aud = .one("someone-else")
        #expect(await refusal(try await server.idToken(claims)) == .audience)
    }

    @Test func severalAudiencesWithoutAuthorizedPartyAreRefused() async throws {
        var claims = server.claims()
        claims.aud = .many([TestProvider.clientId, "api"])
        #expect(await refusal(try await server.idToken(claims)) == .authorizedParty)
        claims.azp = "api"
        #expect(await refusal(try await server.idToken(claims)) == .authorizedParty)
        claims.azp = TestProvider.clientId
        #expect(await refusal(try await server.idToken(claims)) == nil)
    }

    @Test func anExpiredTokenIsRefused() async throws {
        var claims = server.claims()
        // The validator's clock stands still: on a loaded machine a real
        // clock moved past the leeway between signing and checking.
        let now = TokenClock.real()
        let validator = IDTokenValidator(provider: server.provider(), clientId: TestProvider.clientId, now: { now })
        claims.iat = Double(now - 600)
        claims.exp = Double(now - 61)  // past the 60 s leeway
        #expect(await refusal(try await server.idToken(claims), by: validator) == .expired)
        claims.exp = Double(now - 30)  // within it
        #expect(await refusal(try await server.idToken(claims), by: validator) == nil)
    }

    @Test func absurdTimesAreRefusedWithoutATrap() async throws {
        var claims = server.claims()
        claims.exp = -1e300
        #expect(await refusal(try await server.idToken(claims)) == .expired)
        claims = server.claims()
        claims.iat = 1e300
        #expect(await refusal(try await server.idToken(claims)) == .issuedInFuture)
        claims = server.claims()
        claims.iat = Double(TokenClock.real() - 2 * 86_400)
        #expect(await refusal(try await server.idToken(claims)) == .issuedTooLongAgo)
    }

    @Test func aWrongOrMissingNonceIsRefused() async throws {
        #expect(await refusal(try await server.idToken(server.claims(nonce: "n-other"))) == .nonce)
        #expect(await refusal(try await server.idToken(server.claims(nonce: nil))) == .nonce)
        // The device grant sends no nonce: nil skips the comparison.
        #expect(await refusal(try await server.idToken(server.claims(nonce: nil)), nonce: nil) == nil)
    }

    @Test func anotherIssuerIsRefused() async throws {
        var claims = server.claims()
        claims.iss = server.issuer + "/"
        #expect(await refusal(try await server.idToken(claims)) == .issuer)
    }

    /// A kid the key set does not hold fetches the set again, once; still
    /// unknown, the token is refused.
    @Test func anUnknownKidIsRefusedAfterOneRefetch() async throws {
        let token = try await server.idToken(server.claims(), kid: "es-2")  // signed, but es-2 is not published
        #expect(await refusal(token) == .unknownKey("es-2"))
        #expect(server.state.withLock { $0.jwksFetches } == 2)
    }

    /// Key rotation: a kid that appears in the set after it was cached is
    /// found by the refetch, and the token accepted.
    @Test func aKidPublishedAfterCachingIsFoundByTheRefetch() async throws {
        _ = try await validator.validate(try await server.idToken(server.claims()), nonce: "n-1")
        #expect(server.state.withLock { $0.jwksFetches } == 1)
        server.state.withLock { _ = $0.published.insert("es-2") }
        let claims = try await validator.validate(try await server.idToken(server.claims(), kid: "es-2"), nonce: "n-1")
        #expect(claims.subject == "alice")
        #expect(server.state.withLock { $0.jwksFetches } == 2)
    }

    @Test func algNoneIsRefused() async throws {
        let header = Base64URL.encode(Array(#"{"alg":"none","kid":"es-1"}"#.utf8))
        let payload = Base64URL.encode(Array(try JSONEncoder().encode(server.claims())))
        #expect(await refusal(header + "." + payload + ".") == .algorithmNotAllowed("none"))
        #expect(server.state.withLock { $0.jwksFetches } == 0)
    }

    /// The classic confusion: HS256 with the provider's public key as the
    /// HMAC secret. Refused by the allow-list before any key is looked at.
    @Test func hs256SignedWithThePublicKeyIsRefused() async throws {
        let forger = JWTKeyCollection()
        await forger.add(hmac: HMACKey(from: server.ecKey.publicKey.pemRepresentation), digestAlgorithm: .sha256, kid: "es-1")
        let token = try await forger.sign(server.claims(), kid: "es-1")
        #expect(await refusal(token) == .algorithmNotAllowed("HS256"))
    }

    @Test func aSignatureByAnotherKeyIsRefused() async throws {
        let impostor = JWTKeyCollection()
        await impostor.add(ecdsa: ES256PrivateKey(), kid: "es-1")
        #expect(await refusal(try await impostor.sign(server.claims(), kid: "es-1")) == .badSignature)
        // Claims changed after signing.
        let parts = try await server.idToken(server.claims()).split(separator: ".")
        var claims = server.claims()
        claims.sub = "mallory"
        let forged = parts[0] + "." + Base64URL.encode(Array(try JSONEncoder().encode(claims))) + "." + parts[2]
        #expect(await refusal(String(forged)) == .badSignature)
    }

    @Test func malformedTokensAreRefusedWithAReason() async throws {
        #expect(await refusal("not.a.jwt!") == .malformed("it is not base64url"))
        #expect(await refusal("a.b") == .malformed("it is not a compact JWS"))
        var claims = server.claims()
        claims.sub = nil
        guard case .malformed(let why) = await refusal(try await server.idToken(claims)) else {
            Issue.record("a token without sub was not refused as malformed")
            return
        }
        #expect(why.contains("sub"))
    }

    /// §12.2: a refreshed ID token must name the same user, issuer and
    /// audience; its nonce is not compared.
    @Test func aRefreshedTokenMustKeepTheSubject() async throws {
        let previous = try await validator.validate(try await server.idToken(server.claims()), nonce: "n-1")
        let refreshed = try await validator.validateRefreshed(try await server.idToken(server.claims(nonce: nil)), previous: previous)
        #expect(refreshed.subject == previous.subject)
        var other = server.claims(nonce: nil)
        other.sub = "mallory"
        await #expect(throws: OpenIDError.idToken(.subjectChanged)) {
            try await validator.validateRefreshed(try await server.idToken(other), previous: previous)
        }
        var widened = server.claims(nonce: nil)
        widened.aud = .many([TestProvider.clientId, "api"])
        widened.azp = TestProvider.clientId
        await #expect(throws: OpenIDError.idToken(.audience)) {
            try await validator.validateRefreshed(try await server.idToken(widened), previous: previous)
        }
    }

    /// The vault keeps the ID token of the login; read back, it gives the claims to compare with.
    @Test func previouslyValidatedClaimsReadBack() async throws {
        let token = try await server.idToken(server.claims())
        let validated = try await validator.validate(token, nonce: "n-1")
        #expect(try IDTokenClaims(previouslyValidated: token) == validated)
    }
}
