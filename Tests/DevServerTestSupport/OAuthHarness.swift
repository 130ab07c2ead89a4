import Crypto
import Foundation
import JWTKit
import Testing

/// Drives the devserver's authorization server over plain HTTP, as a client
/// and as the person at the consent form would.
package struct OAuthHarness {
    package let h: DevServerHarness
    /// `http://127.0.0.1:PORT/oauth2/default`
    package let issuer: String
    /// `/oauth2/default`, the path part requests are sent to.
    package let base = "/oauth2/default"

    package init(_ h: DevServerHarness) {
        self.h = h
        issuer = "http://\(h.client.host):\(h.client.port)/oauth2/default"
    }

    package static let redirect = "http://127.0.0.1:49152/callback"

    /// A fresh PKCE pair: 32 random octets base64url as the verifier, S256 challenge.
    package static func pkce() -> (verifier: String, challenge: String) {
        let verifier = base64url(Data((0..<32).map { _ in UInt8.random(in: 0...255) }))
        return (verifier, base64url(Data(SHA256.hash(data: Data(verifier.utf8)))))
    }

    package static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    package static func encode(_ items: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return items.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
    }

    /// An authorization request's query with every parameter a good client sends;
    /// `changes` replace (or, with nil, remove) them.
    package static func authorizeQuery(challenge: String, redirect: String = redirect, scope: String = "openid profile email offline_access",
                               changes: [String: String?] = [:]) -> String {
        var items: [(String, String)] = [
            ("response_type", "code"), ("client_id", "cli"), ("redirect_uri", redirect), ("scope", scope),
            ("state", "state-123"), ("nonce", "nonce-456"), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        for (name, value) in changes {
            items.removeAll { $0.0 == name }
            if let value { items.append((name, value)) }
        }
        return encode(items)
    }

    package func get(_ path: String, headers: [String: String] = [:]) async throws -> LoopbackHTTPClient.Reply {
        try await h.client.send("GET", path, headers: headers)
    }

    package func post(_ path: String, _ items: [(String, String)], headers: [String: String] = [:]) async throws -> LoopbackHTTPClient.Reply {
        var headers = headers
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        return try await h.client.send("POST", path, headers: headers, body: Array(Self.encode(items).utf8))
    }

    /// The consent form's post; returns the reply (a 302 when it worked).
    package func consent(_ query: String, _ form: [(String, String)] = [("user", "alice"), ("action", "allow")]) async throws -> LoopbackHTTPClient.Reply {
        try await post("\(base)/v1/authorize?\(query)", form)
    }

    /// The query parameters of a redirect's Location.
    package static func location(_ reply: LoopbackHTTPClient.Reply) throws -> (uri: String, query: [String: String]) {
        try #require(reply.status == 302, "\(reply)")
        let location = try #require(reply.headers["location"])
        let components = try #require(URLComponents(string: location))
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value }
        return (location.components(separatedBy: "?")[0], query)
    }

    /// Authorize as `user` through the consent form; returns the code.
    package func authorize(user: String = "alice", challenge: String, redirect: String = redirect,
                   scope: String = "openid profile email offline_access") async throws -> String {
        let query = Self.authorizeQuery(challenge: challenge, redirect: redirect, scope: scope)
        let page = try await get("\(base)/v1/authorize?\(query)")
        try #require(page.status == 200, "\(page)")
        let (_, answer) = try Self.location(try await consent(query, [("user", user), ("action", "allow")]))
        #expect(answer["state"] == "state-123")
        #expect(answer["iss"] == issuer)
        return try #require(answer["code"])
    }

    package func redeem(code: String, verifier: String, redirect: String = redirect, client: String = "cli") async throws -> LoopbackHTTPClient.Reply {
        try await post("\(base)/v1/token", [("grant_type", "authorization_code"), ("client_id", client), ("code", code),
                                           ("redirect_uri", redirect), ("code_verifier", verifier)])
    }

    /// A whole code flow; returns the token response.
    package func login(user: String = "alice", scope: String = "openid profile email offline_access") async throws -> [String: Any] {
        let (verifier, challenge) = Self.pkce()
        let code = try await authorize(user: user, challenge: challenge, scope: scope)
        let reply = try await redeem(code: code, verifier: verifier)
        try #require(reply.status == 200, "\(reply)")
        #expect(reply.headers["cache-control"] == "no-store")
        return reply.json
    }

    package func refresh(_ token: String, scope: String? = nil, client: String = "cli") async throws -> LoopbackHTTPClient.Reply {
        var items = [("grant_type", "refresh_token"), ("client_id", client), ("refresh_token", token)]
        if let scope { items.append(("scope", scope)) }
        return try await post("\(base)/v1/token", items)
    }

    package func userInfo(_ accessToken: String) async throws -> LoopbackHTTPClient.Reply {
        try await get("\(base)/v1/userinfo", headers: ["Authorization": "Bearer \(accessToken)"])
    }

    package func revoke(_ token: String, hint: String? = nil) async throws -> LoopbackHTTPClient.Reply {
        var items = [("client_id", "cli"), ("token", token)]
        if let hint { items.append(("token_type_hint", hint)) }
        return try await post("\(base)/v1/revoke", items)
    }

    /// The ID token's claims after jwt-kit checked its signature against the
    /// server's JWKS, and the header's `alg`.
    package func verifiedIDToken(_ token: String) async throws -> (claims: TestIDToken, alg: String) {
        let jwks = try await get("\(base)/v1/keys")
        try #require(jwks.status == 200)
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: jwks.text)
        let claims = try await keys.verify(token, as: TestIDToken.self)
        let header = try Self.jsonSegment(try #require(token.split(separator: ".").first))
        return (claims, try #require(header["alg"] as? String))
    }

    /// A JWT segment's JSON, read without any check (for looking at shapes).
    package static func jsonSegment(_ segment: Substring) throws -> [String: Any] {
        var padded = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while padded.count % 4 != 0 { padded += "=" }
        let data = try #require(Data(base64Encoded: padded))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Expects an RFC 6749 §5.2 error answer.
    package static func expectError(_ reply: LoopbackHTTPClient.Reply, _ error: String, status: Int = 400,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status, "\(reply)", sourceLocation: sourceLocation)
        #expect(reply.json["error"] as? String == error, "\(reply)", sourceLocation: sourceLocation)
        #expect((reply.json["error_description"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
    }
}

/// The ID token as a relying party reads it.
package struct TestIDToken: JWTPayload {
    package var iss: IssuerClaim
    package var sub: SubjectClaim
    package var aud: AudienceClaim
    package var exp: ExpirationClaim
    package var iat: IssuedAtClaim
    package var auth_time: Int
    package var nonce: String?
    package var name: String?
    package var email: String?

    package func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
