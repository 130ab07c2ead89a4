import Harness
import HTTPTransport
import OpenID
import Locking
import Testing
import TestSupport
import Tokens

/// The token, device and revocation endpoints of the test provider, over HTTP.
@Suite(.ownThreads) struct OpenIDClientTests {
    let server: TestProvider
    let metadata: ProviderMetadata

    init() async throws {
        server = try await TestProvider()
        metadata = try await server.provider().metadata()
    }

    private func client(now: @escaping @Sendable () -> Int64 = TokenClock.real) -> OpenIDClient {
        OpenIDClient(transport: server.transport, metadata: metadata, clientId: TestProvider.clientId, now: now)
    }

    private static let tokens = LoopbackHTTPServer.Answer.json(
        #"{"access_token":"AT-1","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-1","id_token":"a.b.c","scope":"openid"}"#)

    @Test func theCodeIsExchangedWithTheVerifier() async throws {
        server.scriptTokenAnswers([Self.tokens])
        let request = AuthorizationRequest(redirectURI: "http://127.0.0.1:8400/callback")
        let set = try await client(now: { 1_700_000_000 }).exchange(code: "code-1", request: request)
        #expect(set.accessToken == "AT-1")
        #expect(set.refreshToken == "RT-1")
        #expect(set.idToken == "a.b.c")
        #expect(set.expiresAt == 1_700_003_600)
        #expect(set.issuer == server.issuer)
        #expect(set.tokenEndpoint == server.tokenEndpoint)
        #expect(set.clientId == TestProvider.clientId)
        let form = try #require(server.requests(to: "/v1/token").last).form
        #expect(form == ["grant_type": "authorization_code", "code": "code-1", "redirect_uri": request.redirectURI,
                         "client_id": TestProvider.clientId, "code_verifier": request.pkce.verifier])
    }

    @Test func aRefusedCodeIsInvalidGrant() async throws {
        server.scriptTokenAnswers([.json(#"{"error":"invalid_grant","error_description":"PKCE verification failed"}"#,
                                         status: "400 Bad Request")])
        let request = AuthorizationRequest(redirectURI: "http://127.0.0.1:8400/callback")
        await #expect(throws: OpenIDError.invalidGrant(description: "PKCE verification failed")) {
            try await client().exchange(code: "code-1", request: request)
        }
    }

    @Test func anAnswerWithoutAnAccessTokenIsMalformed() async throws {
        server.scriptTokenAnswers([.json(#"{"token_type":"Bearer"}"#)])
        await #expect {
            try await client().exchange(code: "c", request: AuthorizationRequest(redirectURI: "http://127.0.0.1:1/callback"))
        } throws: { error in
            guard case .malformedResponse(_, let reason) = error as? OpenIDError else { return false }
            return reason.contains("access_token")
        }
    }

    // MARK: Device grant (RFC 8628)

    private func startDevice(interval: Int = 2, expiresIn: Int = 600,
                             now: @escaping @Sendable () -> Int64 = TokenClock.real) async throws -> DeviceAuthorization {
        server.state.withLock {
            $0.deviceAnswer = .json(#"{"device_code":"DC-secret","user_code":"BCDF-GHJK","verification_uri":"\#(server.issuer)/device","#
                + #""verification_uri_complete":"\#(server.issuer)/device?user_code=BCDF-GHJK","expires_in":\#(expiresIn),"interval":\#(interval)}"#)
        }
        return try await client(now: now).startDeviceAuthorization(scopes: ["offline_access"])
    }

    private static func error(_ code: String) -> LoopbackHTTPServer.Answer {
        .json(#"{"error":"\#(code)"}"#, status: "400 Bad Request")
    }

    /// Records the waits the client asks for, and waits for none of them.
    final class Sleeps: Sendable {
        let asked = Locked<[Duration]>([])
        var sleep: @Sendable (Duration) async throws -> Void { { duration in self.asked.withLock { $0.append(duration) } } }
    }

    @Test func theDeviceAuthorizationIsReadAndItsCodeKeptSecret() async throws {
        let authorization = try await startDevice()
        #expect(authorization.userCode == "BCDF-GHJK")
        #expect(authorization.verificationURI == server.issuer + "/device")
        #expect(authorization.verificationURIComplete == server.issuer + "/device?user_code=BCDF-GHJK")
        #expect(authorization.interval == 2)
        #expect(!"\(authorization)".contains("DC-secret"))
        #expect(!String(reflecting: authorization).contains("DC-secret"))
        let form = try #require(server.requests(to: "/v1/device/authorize").last).form
        #expect(form == ["client_id": TestProvider.clientId, "scope": "openid offline_access"])
    }

    /// RFC 8628 §3.5: slow_down adds 5 s to this wait and every later one.
    @Test func slowDownAddsFiveSecondsForGood() async throws {
        let authorization = try await startDevice(interval: 2)
        server.scriptTokenAnswers([Self.error("authorization_pending"), Self.error("slow_down"), Self.error("authorization_pending"),
                                   Self.error("slow_down"), Self.tokens])
        let sleeps = Sleeps()
        let set = try await client().pollDeviceToken(authorization, sleep: sleeps.sleep)
        #expect(set.accessToken == "AT-1")
        #expect(sleeps.asked.withLock { $0 } == [.seconds(2), .seconds(2), .seconds(7), .seconds(7), .seconds(12)])
        let polls = server.requests(to: "/v1/token").map(\.form)
        #expect(polls.count == 5)
        #expect(polls.allSatisfy { $0 == ["grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "DC-secret",
                                          "client_id": TestProvider.clientId] })
    }

    @Test func expiredTokenEndsThePolling() async throws {
        let authorization = try await startDevice()
        server.scriptTokenAnswers([Self.error("authorization_pending"), Self.error("expired_token"), Self.tokens])
        await #expect(throws: OpenIDError.deviceCodeExpired) {
            try await client().pollDeviceToken(authorization, sleep: Sleeps().sleep)
        }
        #expect(server.requests(to: "/v1/token").count == 2)
    }

    @Test func accessDeniedEndsThePolling() async throws {
        let authorization = try await startDevice()
        server.scriptTokenAnswers([Self.error("access_denied"), Self.tokens])
        await #expect(throws: OpenIDError.deviceAccessDenied) {
            try await client().pollDeviceToken(authorization, sleep: Sleeps().sleep)
        }
    }

    /// The expiry passing ends the polling even while the server keeps saying "pending".
    @Test func thePollingStopsAtTheExpiry() async throws {
        let clock = Locked<Int64>(1_700_000_000)
        let now: @Sendable () -> Int64 = { clock.withLock { $0 } }
        let authorization = try await startDevice(interval: 5, expiresIn: 12, now: now)
        #expect(authorization.expiresAt == 1_700_000_012)
        server.scriptTokenAnswers(Array(repeating: Self.error("authorization_pending"), count: 10))
        let sleeps: @Sendable (Duration) async throws -> Void = { duration in
            clock.withLock { $0 += duration.components.seconds }
        }
        await #expect(throws: OpenIDError.deviceCodeExpired) {
            try await client(now: now).pollDeviceToken(authorization, sleep: sleeps)
        }
        #expect(server.requests(to: "/v1/token").count == 2)  // at +5 and +10; the wait to +12 ends it
    }

    @Test func aCancelledWaitEndsThePolling() async throws {
        let authorization = try await startDevice()
        await #expect(throws: OpenIDError.cancelled) {
            try await client().pollDeviceToken(authorization, sleep: { _ in throw CancellationError() })
        }
    }

    @Test func aUserCodeWithTerminalEscapesIsRefused() async throws {
        server.state.withLock {
            $0.deviceAnswer = .json(#"{"device_code":"d","user_code":"\u001b]0;pwned\u0007","verification_uri":"https://id.example.com/device","expires_in":600}"#)
        }
        await #expect(throws: OpenIDError.self) { try await client().startDeviceAuthorization(scopes: []) }
        server.state.withLock {
            $0.deviceAnswer = .json(#"{"device_code":"d","user_code":"ABCD","verification_uri":"javascript:alert(1)","expires_in":600}"#)
        }
        await #expect(throws: OpenIDError.self) { try await client().startDeviceAuthorization(scopes: []) }
    }

    @Test func aProviderWithoutDeviceEndpointSaysSo() async throws {
        var bare = metadata
        bare.deviceAuthorizationEndpoint = nil
        bare.revocationEndpoint = nil
        let client = OpenIDClient(transport: server.transport, metadata: bare, clientId: TestProvider.clientId)
        await #expect(throws: OpenIDError.noDeviceEndpoint) { try await client.startDeviceAuthorization(scopes: []) }
        await #expect(throws: OpenIDError.noRevocationEndpoint) { try await client.revoke("RT-1", hint: .refreshToken) }
    }

    /// A confidential client (client_secret_post) sends its secret with every request, polls included.
    @Test func aConfidentialClientSendsItsSecretEverywhere() async throws {
        let confidential = OpenIDClient(transport: server.transport, metadata: metadata, clientId: TestProvider.clientId,
                                        clientSecret: "s3cret")
        server.scriptTokenAnswers([Self.tokens, Self.tokens])
        _ = try await confidential.exchange(code: "c", request: AuthorizationRequest(redirectURI: "http://127.0.0.1:8400/callback"))
        _ = try await startDevice()
        server.state.withLock { $0.requests.removeAll() }
        let authorization = try await confidential.startDeviceAuthorization(scopes: [])
        _ = try await confidential.pollDeviceToken(authorization, sleep: Sleeps().sleep)
        try await confidential.revoke("RT-1", hint: .refreshToken)
        let requests = server.state.withLock { $0.requests }
        #expect(requests.count == 3)
        #expect(requests.allSatisfy { $0.form["client_secret"] == "s3cret" })
    }

    // MARK: Revocation (RFC 7009) and refresh

    @Test func revocationPostsTheTokenAndItsHint() async throws {
        try await client().revoke("RT-1", hint: .refreshToken)
        let form = try #require(server.requests(to: "/v1/revoke").last).form
        #expect(form == ["token": "RT-1", "token_type_hint": "refresh_token", "client_id": TestProvider.clientId])
    }

    /// RFC 6749 §6: a refresh answer without refresh_token keeps the old one
    /// (Tokens' TokenRefresher, against this provider's token endpoint).
    @Test func aRefreshWithoutARefreshTokenKeepsTheOldOne() async throws {
        server.scriptTokenAnswers([Self.tokens, .json(#"{"access_token":"AT-2","token_type":"Bearer","expires_in":3600}"#)])
        let request = AuthorizationRequest(redirectURI: "http://127.0.0.1:8400/callback")
        let set = try await client().exchange(code: "code-1", request: request)
        let refreshed = try await TokenRefresher(transport: server.transport).refresh(set, account: "work")
        #expect(refreshed.accessToken == "AT-2")
        #expect(refreshed.refreshToken == "RT-1")
    }
}
