import Crypto
import Foundation
import Harness
import HTTPTransport
import OktaIDX
import OpenID
import Locking
import Testing
import TestSupport
import Tokens

/// The IDX client over HTTP against a loopback server that plays Okta with
/// the recorded answers: interact, introspect, the forms, the
/// interaction_code grant with the PKCE check a real server makes.
@Suite(.ownThreads) struct IDXClientTests {
    /// The scripted server: each IDX path answers the next fixture queued for it.
    final class ScriptedOkta: Sendable {
        struct State {
            var answers: [String: [(String, String)]] = [:]
            var requests: [LoopbackHTTPServer.Request] = []
            var challenge: String?
            var codeUsed = false
        }
        let state = Locked(State())
        private let server: LoopbackHTTPServer

        init() throws {
            // Reached weakly from the server's threads: the test's last reference stops it.
            let box = Locked(Weak())
            server = try LoopbackHTTPServer { request in
                box.withLock { $0.okta }?.answer(request) ?? .json("{}", status: "503 Service Unavailable")
            }
            box.withLock { $0.okta = self }
        }

        struct Weak { weak var okta: ScriptedOkta? }

        deinit { server.stop() }

        var origin: String { server.url("") }
        var issuer: String { origin + "/oauth2/default" }
        var metadata: ProviderMetadata {
            ProviderMetadata(issuer: issuer, authorizationEndpoint: issuer + "/v1/authorize", tokenEndpoint: issuer + "/v1/token",
                             jwksURI: issuer + "/v1/keys")
        }

        func queue(_ path: String, _ fixture: String, status: String = "200 OK") throws {
            let body = try IDXFixtures.text(fixture, origin: origin)
            state.withLock { $0.answers[path, default: []].append((status, body)) }
        }

        func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Answer {
            state.withLock { state in
                state.requests.append(request)
                let path = String(request.path)
                if path == "/oauth2/default/v1/interact" {
                    state.challenge = request.form["code_challenge"]
                    if let (status, body) = state.answers[path]?.first { return .json(body, status: status) }
                    return .json(#"{"interaction_handle":"fixture-interaction-handle"}"#)
                }
                if path == "/oauth2/default/v1/token" {
                    let form = request.form
                    guard form["grant_type"] == "interaction_code", form["interaction_code"] == "fixture-interaction-code",
                          !state.codeUsed else {
                        return .json(#"{"error":"invalid_grant","error_description":"The interaction code is invalid or has expired."}"#,
                                     status: "400 Bad Request")
                    }
                    state.codeUsed = true
                    let verifier = form["code_verifier"] ?? ""
                    guard PKCE(verifier: verifier).challenge == state.challenge else {
                        return .json(try! IDXFixtures.text("11-token-error"), status: "400 Bad Request")
                    }
                    return .json(#"{"access_token":"fixture-access","token_type":"Bearer","expires_in":3600,"refresh_token":"fixture-refresh","scope":"openid offline_access"}"#)
                }
                guard var queued = state.answers[path], !queued.isEmpty else { return .json("{}", status: "404 Not Found") }
                let (status, body) = queued.removeFirst()
                state.answers[path] = queued
                return .json(body, status: status)
            }
        }

        var requests: [LoopbackHTTPServer.Request] { state.withLock { $0.requests } }
    }

    @Test("identify → select the key → enroll → success → tokens: every IDX call carries Origin and asks for ION")
    func enrollFlow() async throws {
        let okta = try ScriptedOkta()
        try okta.queue("/idp/idx/introspect", "01-introspect-identify")
        try okta.queue("/idp/idx/identify", "02-select-enroll")
        try okta.queue("/idp/idx/credential/enroll", "03-enroll-webauthn")
        try okta.queue("/idp/idx/challenge/answer", "09-success")
        let client = try IDXClient(transport: HTTPTransport(), metadata: okta.metadata, clientId: "cli")
        #expect(client.endpoints.interact == okta.issuer + "/v1/interact")
        #expect(client.endpoints.origin == okta.origin)

        let transaction = try await client.interact(scopes: ["openid", "offline_access"], redirectURI: "http://127.0.0.1/callback")
        #expect("\(transaction)" == "IDXTransaction(secrets hidden)")
        var response = try await client.introspect(transaction)
        guard case .ask(let identify) = IDXNextStep.next(response) else { Issue.record("identify"); return }
        response = try await client.proceed(identify, values: ["identifier": "jane@example.test"], stateHandle: response.stateHandle)
        guard case .select(let select, let values) = IDXNextStep.next(response) else { Issue.record("select"); return }
        response = try await client.proceed(select, values: values, stateHandle: response.stateHandle)
        guard case .enrollWebAuthn(let enroll) = IDXNextStep.next(response) else { Issue.record("enroll"); return }
        response = try await client.proceed(enroll, values: IDXWebAuthn.enrollValues(attestationObject: [1, 2], clientDataJSON: [3]),
                                            stateHandle: response.stateHandle)
        guard case .exchange(let success) = IDXNextStep.next(response) else { Issue.record("success"); return }
        let tokens = try await client.exchange(success, transaction: transaction)
        #expect(tokens.accessToken == "fixture-access" && tokens.refreshToken == "fixture-refresh")
        #expect(tokens.issuer == okta.issuer && tokens.clientId == "cli" && tokens.tokenEndpoint == okta.issuer + "/v1/token")

        let requests = okta.requests
        let interact = try #require(requests.first)
        #expect(interact.form["code_challenge_method"] == "S256")
        #expect(interact.form["state"] != nil && interact.form["nonce"] == transaction.nonce)
        for request in requests where request.path.hasPrefix("/idp/idx/") {
            #expect(request.header("Origin") == okta.origin, "Origin on \(request.path)")
            #expect(request.header("Accept") == IDXMediaType.ion)
        }
        let posted = try #require(requests.first { $0.path == "/idp/idx/identify" })
        let body = try JSONSerialization.jsonObject(with: Data(posted.body)) as? [String: Any]
        #expect(body?["identifier"] as? String == "jane@example.test")
        #expect(body?["stateHandle"] as? String == "02.id.fixtureStateOne")
        let answered = try #require(requests.first { $0.path == "/idp/idx/challenge/answer" })
        let credentials = (try JSONSerialization.jsonObject(with: Data(answered.body)) as? [String: Any])?["credentials"] as? [String: String]
        #expect(credentials == ["attestation": "AQI", "clientData": "Aw"])

        // The interaction code is single-use.
        await #expect(throws: IDXError.token(.invalidGrant(description: "The interaction code is invalid or has expired."))) {
            try await client.exchange(success, transaction: transaction)
        }
    }

    @Test("a wrong PKCE verifier: the token endpoint's invalid_grant, as an error")
    func wrongVerifier() async throws {
        let okta = try ScriptedOkta()
        let client = try IDXClient(transport: HTTPTransport(), metadata: okta.metadata, clientId: "cli")
        let transaction = try await client.interact(scopes: ["openid"], redirectURI: "http://127.0.0.1/callback")
        let forged = IDXTransaction(pkce: PKCE(), state: transaction.state, nonce: transaction.nonce,
                                    interactionHandle: transaction.interactionHandle)
        let success = try #require(try IDXFixtures.response("09-success", origin: okta.origin).success)
        await #expect(throws: IDXError.token(.invalidGrant(description: "PKCE verification failed."))) {
            try await client.exchange(success, transaction: forged)
        }
    }

    @Test("interact refused: the OAuth error; a 4xx ION body is an answer; a 5xx is an error; a foreign href is never posted to")
    func errors() async throws {
        let okta = try ScriptedOkta()
        try okta.queue("/oauth2/default/v1/interact", "10-interact-error", status: "400 Bad Request")
        let client = try IDXClient(transport: HTTPTransport(), metadata: okta.metadata, clientId: "cli")
        do {
            _ = try await client.interact(scopes: ["openid"], redirectURI: "http://127.0.0.1/callback")
            Issue.record("interact must fail")
        } catch {
            guard case .interactRefused(400, "invalid_request", let text?) = error else { Issue.record("\(error)"); return }
            #expect(text.contains("PKCE code challenge is required"))
        }

        let transaction = IDXTransaction(pkce: PKCE(), state: "s", nonce: "n", interactionHandle: "h")
        try okta.queue("/idp/idx/introspect", "07-session-expired", status: "401 Unauthorized")
        let expired = try await client.introspect(transaction)
        #expect(expired.isSessionExpired)
        okta.state.withLock { $0.answers["/idp/idx/introspect"] = [("500 Internal Server Error", "oops")] }
        await #expect(throws: IDXError.server(url: okta.origin + "/idp/idx/introspect", status: 500, errorCode: nil, description: nil)) {
            try await client.introspect(transaction)
        }

        var foreign = try #require(try IDXFixtures.response("05-challenge-password", origin: okta.origin).remediations.first)
        let before = okta.requests.count
        for href in ["https://evil.example/idp/idx/challenge/answer", okta.origin.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/x",
                     "http://127.0.0.1:1@evil.example/idp/idx/challenge/answer"] {
            foreign.href = href
            await #expect(throws: IDXError.foreignHref(href)) {
                try await client.proceed(foreign, values: ["credentials.passcode": "pw"], stateHandle: "s")
            }
        }
        #expect(okta.requests.count == before, "nothing was sent")
    }

    @Test("the interact endpoint beside the authorization endpoint, for a custom and the org authorization server")
    func endpoints() throws {
        let custom = try IDXEndpoints(metadata: ProviderMetadata(
            issuer: "https://acme.okta.test/oauth2/default", authorizationEndpoint: "https://acme.okta.test/oauth2/default/v1/authorize",
            tokenEndpoint: "https://acme.okta.test/oauth2/default/v1/token", jwksURI: "https://acme.okta.test/oauth2/default/v1/keys"))
        #expect(custom.interact == "https://acme.okta.test/oauth2/default/v1/interact")
        #expect(custom.introspect == "https://acme.okta.test/idp/idx/introspect")
        #expect(custom.origin == "https://acme.okta.test")
        let org = try IDXEndpoints(metadata: ProviderMetadata(
            issuer: "https://acme.okta.test", authorizationEndpoint: "https://acme.okta.test/oauth2/v1/authorize",
            tokenEndpoint: "https://acme.okta.test/oauth2/v1/token", jwksURI: "https://acme.okta.test/oauth2/v1/keys"))
        #expect(org.interact == "https://acme.okta.test/oauth2/v1/interact")
        #expect(org.isOnOrigin("https://acme.okta.test:443/idp/idx/identify"))
        #expect(!org.isOnOrigin("https://acme.okta.test.evil.example/idp/idx/identify"))
    }
}
