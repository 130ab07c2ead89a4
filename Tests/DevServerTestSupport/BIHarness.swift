import Base64
import Foundation
import JWTKit
import Testing
import TestSupport
import WebAuthn

/// Drives the devserver's Beyond-Identity-like IdP over plain HTTP: as its
/// admin (identities, binding jobs, with the ApiSecret), as the app that
/// binds a passkey and proves a request JWT with the software authenticator,
/// and as the browser following redirects.
package struct BIHarness {
    package let h: DevServerHarness
    package let origin: String
    package static let realm = "/bi/v1/tenants/t1/realms/r1"
    package static let app = realm + "/applications/a1"
    package static let rpId = "bi.passkey.test"
    package static let passkeyOrigin = "https://bi.passkey.test"
    package static let callback = "/oauth2/v1/authorize/callback"

    package init(_ h: DevServerHarness) {
        self.h = h
        origin = "http://\(h.client.host):\(h.client.port)"
    }

    package var issuer: String { origin + Self.app }

    /// A URL of this server as the path to send it to; fails for other hosts.
    package func path(of url: String) throws -> String {
        try #require(url.hasPrefix(origin + "/"), "not this server: \(url)")
        return String(url.dropFirst(origin.count))
    }

    // MARK: Admin and binding

    package func createIdentity(_ username: String) async throws -> String {
        let reply = try await h.secret("POST", Self.realm + "/identities", [
            "identity": ["display_name": username.capitalized,
                         "traits": ["username": username, "primary_email_address": "\(username)@example.test"]],
        ])
        try #require(reply.status == 200, "\(reply)")
        return try #require(reply.json["id"] as? String)
    }

    /// A binding job's link (RETURN delivery).
    package func bindingLink(identityId: String, extra: [String: Any] = [:]) async throws -> String {
        var job: [String: Any] = ["delivery_method": "RETURN"]
        job.merge(extra) { _, new in new }
        let reply = try await h.secret("POST", Self.realm + "/identities/\(identityId)/credential-binding-jobs", ["job": job])
        try #require(reply.status == 200, "\(reply)")
        let state = (reply.json["credential_binding_job"] as? [String: Any])?["state"] as? String
        #expect(state == "LINK_SENT")
        return try #require(reply.json["credential_binding_link"] as? String)
    }

    /// Follows a binding link; returns the `/bind` URL's parameters.
    package func followBindingLink(_ link: String) async throws -> [String: String] {
        let reply = try await h.client.send("GET", try path(of: link))
        let (uri, query) = try OAuthHarness.location(reply)
        #expect(uri == "io.github.passkey-agent:/invoke/bind")
        return query
    }

    package func bindStep(_ bind: [String: String], _ step: String, _ body: [String: Any]) async throws -> LoopbackHTTPClient.Reply {
        let identity = try #require(bind["identity_id"]), job = try #require(bind["job_id"])
        return try await h.client.send("POST", Self.realm + "/identities/\(identity)/credential-binding-jobs/\(job):\(step)", json: body)
    }

    package func beginBinding(_ bind: [String: String]) async throws -> PublicKeyCredentialCreationOptionsJSON {
        let reply = try await bindStep(bind, "begin", ["token": try #require(bind["token"])])
        try #require(reply.status == 200, "\(reply)")
        #expect(reply.json["origin"] as? String == Self.passkeyOrigin)
        let options = try JSONSerialization.data(withJSONObject: try #require(reply.json["options"]))
        return try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: options)
    }

    package func completeBinding(_ bind: [String: String], _ credential: RegistrationResponseJSON) async throws -> LoopbackHTTPClient.Reply {
        try await bindStep(bind, "complete", ["token": try #require(bind["token"]), "credential": try h.jsonObject(credential)])
    }

    /// A new identity with a passkey on `key`; returns the identity id.
    @discardableResult
    package func enroll(_ username: String, key: inout SoftwareAuthenticator) async throws -> String {
        let identityId = try await createIdentity(username)
        let bind = try await followBindingLink(try await bindingLink(identityId: identityId))
        let options = try await beginBinding(bind)
        let reply = try await completeBinding(bind, key.register(options, origin: Self.passkeyOrigin))
        try #require(reply.status == 200, "\(reply)")
        return identityId
    }

    // MARK: Authentication

    /// BI's /authorize as the Okta-like server calls it.
    package static func authorizeQuery(state: String = "okta-state", nonce: String = "okta-nonce", redirect: String) -> String {
        OAuthHarness.encode([("response_type", "code"), ("client_id", "bi-okta"), ("redirect_uri", redirect),
                             ("state", state), ("scope", "openid"), ("nonce", nonce)])
    }

    /// A request JWT from /authorize (automatic invocation).
    package func requestJWT(state: String = "okta-state", nonce: String = "okta-nonce") async throws -> String {
        let reply = try await h.client.send("GET", Self.app + "/authorize?" + Self.authorizeQuery(
            state: state, nonce: nonce, redirect: origin + Self.callback), headers: ["User-Agent": "bi-test-browser/1.0"])
        return try Self.request(fromInvokeURL: try #require(reply.headers["location"], "\(reply)"))
    }

    package static func request(fromInvokeURL url: String) throws -> String {
        let components = try #require(URLComponents(string: url))
        #expect(url.hasPrefix("io.github.passkey-agent:/invoke/bi-authenticate?request="))
        return try #require(components.queryItems?.first { $0.name == "request" }?.value)
    }

    /// The JWT's payload, read without checks.
    package static func claims(_ jwt: String) throws -> [String: Any] {
        try OAuthHarness.jsonSegment(jwt.split(separator: ".")[1])
    }

    /// What the app reads out of a request JWT to prove it.
    package struct Prove {
        package var transactionId: String
        package var jti: String
        package var challenge: [UInt8]
        package var allowCredentials: [String]
        package var redirectURI: String
        package var state: String
    }

    package static func prove(_ jwt: String) throws -> Prove {
        let claims = try claims(jwt)
        let authn = try #require(claims["authn"] as? [String: Any])
        let prove = try #require((authn["action"] as? [String: Any])?["prove"] as? [String: Any])
        let nonce = try #require(prove["nonce"] as? String)
        let challenge = try #require(Base64URL.decode(nonce, padding: .refused))
        return Prove(transactionId: try #require(prove["transaction_id"] as? String), jti: try #require(claims["jti"] as? String),
                     challenge: challenge,
                     allowCredentials: try #require(prove["allow_credentials"] as? [String]),
                     redirectURI: try #require(authn["redirect_uri"] as? String), state: try #require(authn["state"] as? String))
    }

    /// The software authenticator's assertion for a request, with any tampering.
    package static func assertion(_ prove: Prove, key: inout SoftwareAuthenticator, origin: String = passkeyOrigin,
                          tampering: SoftwareAuthenticator.Tampering = .init()) -> AuthenticationResponseJSON {
        key.assertion(challenge: prove.challenge, origin: origin, rpId: rpId, userHandle: key.userHandle, tampering: tampering)
    }

    package func postProof(_ prove: Prove, _ credential: AuthenticationResponseJSON, jti: String? = nil) async throws -> LoopbackHTTPClient.Reply {
        try await h.client.send("POST", Self.realm + "/transactions/\(prove.transactionId)/prove",
                                json: ["jti": jti ?? prove.jti, "credential": try h.jsonObject(credential)])
    }

    /// Expects `{"error": code}` with a 4xx.
    package static func expectError(_ reply: LoopbackHTTPClient.Reply, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((400..<500).contains(reply.status), "\(reply)", sourceLocation: sourceLocation)
        #expect(reply.json["error"] as? String == code, "\(reply)", sourceLocation: sourceLocation)
        #expect((reply.json["error_description"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
    }
}
