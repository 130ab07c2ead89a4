import Base64
import DevServer
import Foundation
import IDXDevServer
import Testing
import TestSupport
import WebAuthn

/// Drives the devserver's Okta Identity Engine (IDX) subset over plain HTTP
/// as an IDX client would: interact, introspect, then each remediation's
/// `href` with its form, reading challenges out of the ION answers.
package struct IDXHarness {
    package let h: DevServerHarness
    package let oauth: OAuthHarness
    /// `http://127.0.0.1:PORT`, the org's origin: what clientDataJSON says.
    package let origin: String
    /// The RP ID a client derives from `u2fParams.appid`: the issuer's host,
    /// unless the test configured another.
    package var rpId = "127.0.0.1"
    package static let password = "correct horse battery"

    package init(_ h: DevServerHarness) {
        self.h = h
        oauth = OAuthHarness(h)
        origin = "http://\(h.client.host):\(h.client.port)"
    }

    /// A devserver with users alice (no password), bob (a password) and carol (no password).
    package static func with(_ configure: (inout DevServerConfiguration) -> Void = { _ in },
                     _ body: (IDXHarness) async throws -> Void) async throws {
        let users = [try IDXUserRegistration(username: "alice"), try IDXUserRegistration(username: "bob", password: password),
                     try IDXUserRegistration(username: "carol")]
        try await DevServerHarness.with({ configuration in
            configuration.idx = IDXConfiguration(users: users)
            configure(&configuration)
        }) { h in try await body(IDXHarness(h)) }
    }

    // MARK: Wire

    /// An ION answer: status and body.
    package struct Answer: CustomStringConvertible {
        package var status: Int
        package var json: [String: Any]
        package var contentType: String?
        package var description: String { "HTTP \(status) \(String(decoding: (try? JSONSerialization.data(withJSONObject: json)) ?? Data(), as: UTF8.self))" }

        package var stateHandle: String? { json["stateHandle"] as? String }
        package var remediations: [[String: Any]] { ((json["remediation"] as? [String: Any])?["value"] as? [[String: Any]]) ?? [] }
        package var remediationNames: [String] { remediations.compactMap { $0["name"] as? String } }

        package func remediation(_ name: String) throws -> [String: Any] {
            try #require(remediations.first { $0["name"] as? String == name }, "no \(name) in \(self)")
        }

        package var currentContext: [String: Any]? {
            ((json["currentAuthenticator"] as? [String: Any])?["value"] as? [String: Any])?["contextualData"] as? [String: Any]
        }

        /// The top-level messages' i18n keys.
        package var messageKeys: [String] {
            (((json["messages"] as? [String: Any])?["value"] as? [[String: Any]]) ?? []).compactMap { ($0["i18n"] as? [String: Any])?["key"] as? String }
        }
        package var messageTexts: [String] {
            (((json["messages"] as? [String: Any])?["value"] as? [[String: Any]]) ?? []).compactMap { $0["message"] as? String }
        }

        /// The messages on a field (dotted path into nested forms) of a remediation.
        package func fieldMessageKeys(_ remediation: String, _ path: [String]) -> [String] {
            guard let form = remediations.first(where: { $0["name"] as? String == remediation })?["value"] as? [[String: Any]] else { return [] }
            var fields = form
            var field: [String: Any]?
            for name in path {
                field = fields.first { $0["name"] as? String == name }
                fields = ((field?["form"] as? [String: Any])?["value"] as? [[String: Any]]) ?? []
            }
            return (((field?["messages"] as? [String: Any])?["value"] as? [[String: Any]]) ?? []).compactMap {
                ($0["i18n"] as? [String: Any])?["key"] as? String
            }
        }
    }

    package func path(of url: String) throws -> String {
        try #require(url.hasPrefix(origin + "/"), "not this server: \(url)")
        return String(url.dropFirst(origin.count))
    }

    package func postJSON(_ path: String, _ body: [String: Any], headers: [String: String] = [:]) async throws -> Answer {
        var headers = headers
        headers["Accept"] = "application/ion+json; okta-version=1.0.0"
        let reply = try await h.client.send("POST", path, headers: headers, json: body)
        let json = (try? JSONSerialization.jsonObject(with: Data(reply.body))) as? [String: Any] ?? [:]
        return Answer(status: reply.status, json: json, contentType: reply.headers["content-type"])
    }

    /// Posts `body` (plus the stateHandle) to a remediation's href.
    package func proceed(_ answer: Answer, _ name: String, _ body: [String: Any], headers: [String: String] = [:]) async throws -> Answer {
        let remediation = try answer.remediation(name)
        var body = body
        body["stateHandle"] = try #require(answer.stateHandle)
        return try await postJSON(try path(of: try #require(remediation["href"] as? String)), body, headers: headers)
    }

    // MARK: Steps

    package struct Start {
        package var verifier: String
        package var handle: String
        package var answer: Answer
    }

    /// interact (PKCE S256, state, nonce) then introspect.
    package func start(client: String = "cli", scope: String = "openid profile offline_access") async throws -> Start {
        let (verifier, challenge) = OAuthHarness.pkce()
        let reply = try await oauth.post(oauth.base + "/v1/interact", [
            ("client_id", client), ("scope", scope), ("redirect_uri", OAuthHarness.redirect), ("code_challenge", challenge),
            ("code_challenge_method", "S256"), ("state", "idx-state"), ("nonce", "idx-nonce"),
        ])
        try #require(reply.status == 200, "\(reply)")
        let handle = try #require(reply.json["interaction_handle"] as? String)
        let answer = try await postJSON("/idp/idx/introspect", ["interactionHandle": handle])
        try #require(answer.status == 200, "\(answer)")
        return Start(verifier: verifier, handle: handle, answer: answer)
    }

    package func identify(_ answer: Answer, _ username: String) async throws -> Answer {
        try await proceed(answer, "identify", ["identifier": username, "rememberMe": false])
    }

    /// Chooses an authenticator by `key` from a select remediation's options.
    package func select(_ answer: Answer, _ remediation: String, key: String) async throws -> Answer {
        let authenticators = ((answer.json["authenticators"] as? [String: Any])?["value"] as? [[String: Any]]) ?? []
        let id = try #require(authenticators.first { $0["key"] as? String == key }?["id"] as? String, "no \(key) in \(answer)")
        let methodType = key == "webauthn" ? "webauthn" : "password"
        return try await proceed(answer, remediation, ["authenticator": ["id": id, "methodType": methodType]])
    }

    /// The enroll step's attestation for `key`, as base64 (Okta's Swift SDK) or base64url.
    package func attestation(_ answer: Answer, key: inout SoftwareAuthenticator, base64url: Bool = false,
                     tampering: SoftwareAuthenticator.Tampering = .init(), attestation: SoftwareAuthenticator.Attestation = .none,
                     origin: String? = nil) throws -> [String: Any] {
        let activation = try #require(answer.currentContext?["activationData"] as? [String: Any], "\(answer)")
        let challengeText = try #require(activation["challenge"] as? String)
        let challenge = try #require(Base64URL.decode(challengeText, padding: .refused))
        let user = try #require(activation["user"] as? [String: Any])
        key.userHandle = Array(try #require(user["id"] as? String).utf8)
        let response = key.registration(challenge: challenge, origin: origin ?? self.origin, rpId: rpId, attestation: attestation,
                                        tampering: tampering)
        return ["credentials": ["attestation": Self.encode(response.response.attestationObject.bytes, base64url),
                                "clientData": Self.encode(response.response.clientDataJSON.bytes, base64url)]]
    }

    /// The challenge step's assertion by `key`.
    package func assertion(_ answer: Answer, key: inout SoftwareAuthenticator, base64url: Bool = false,
                   tampering: SoftwareAuthenticator.Tampering = .init(), origin: String? = nil) throws -> [String: Any] {
        let data = try #require(answer.currentContext?["challengeData"] as? [String: Any], "\(answer)")
        let challengeText = try #require(data["challenge"] as? String)
        let challenge = try #require(Base64URL.decode(challengeText, padding: .refused))
        let response = key.assertion(challenge: challenge, origin: origin ?? self.origin, rpId: rpId, userHandle: key.userHandle,
                                     tampering: tampering).response
        return ["credentials": ["authenticatorData": Self.encode(response.authenticatorData.bytes, base64url),
                                "clientData": Self.encode(response.clientDataJSON.bytes, base64url),
                                "signatureData": Self.encode(response.signature.bytes, base64url)]]
    }

    package static func encode(_ bytes: [UInt8], _ base64url: Bool) -> String {
        base64url ? Base64URL.encode(bytes) : Data(bytes).base64EncodedString()
    }

    /// identify → select the security key to enroll → enroll-authenticator; the success answer.
    package func enroll(_ username: String, key: inout SoftwareAuthenticator) async throws -> (Start, Answer) {
        let start = try await start()
        let selection = try await identify(start.answer, username)
        try #require(selection.remediationNames == ["select-authenticator-enroll"], "\(selection)")
        let enrolling = try await select(selection, "select-authenticator-enroll", key: "webauthn")
        let done = try await proceed(enrolling, "enroll-authenticator", try attestation(enrolling, key: &key))
        try #require(done.status == 200, "\(done)")
        return (start, done)
    }

    /// identify → select the security key → challenge-authenticator; the answer.
    package func signIn(_ username: String, key: inout SoftwareAuthenticator) async throws -> (Start, Answer) {
        let start = try await start()
        let selection = try await identify(start.answer, username)
        let challenge = try await select(selection, "select-authenticator-authenticate", key: "webauthn")
        let done = try await proceed(challenge, "challenge-authenticator", try assertion(challenge, key: &key))
        return (start, done)
    }

    /// The interaction code of a success answer.
    package func interactionCode(_ answer: Answer) throws -> String {
        let success = try #require(answer.json["successWithInteractionCode"] as? [String: Any], "\(answer)")
        let fields = try #require(success["value"] as? [[String: Any]])
        return try #require(fields.first { $0["name"] as? String == "interaction_code" }?["value"] as? String)
    }

    package func redeem(_ code: String, verifier: String, client: String = "cli") async throws -> LoopbackHTTPClient.Reply {
        try await oauth.post(oauth.base + "/v1/token", [("grant_type", "interaction_code"), ("interaction_code", code),
                                                      ("client_id", client), ("code_verifier", verifier)])
    }
}
