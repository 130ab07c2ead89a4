import DevServer
import DevServerTestSupport
import Foundation
import OAuthDevServer
import Testing
import TestSupport

/// A confidential client (`--oauth-confidential-client`, for OpenID clients
/// such as oidc-agent that insist on a secret): its secret by exactly one of
/// client_secret_basic and client_secret_post, refused without it or with a
/// wrong one; public clients still may not send one.
@Suite(.ownThreads) struct OAuthConfidentialClientTests {
    static func basic(_ id: String, _ secret: String) -> [String: String] {
        ["Authorization": "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()]
    }

    @Test func theSecretIsAskedForAndCheckedByBasicOrPostNeverBoth() async throws {
        let registration = try OAuthClientRegistration(argument: "peer=http://127.0.0.1/callback", confidential: true)
        let secret = try #require(registration.secret)
        #expect(secret.utf8.count >= 32)
        try await DevServerHarness.with({ $0.oauth.clients = [registration] }) { h in
            let o = OAuthHarness(h)
            let token = o.base + "/v1/token"
            func code() async throws -> (code: String, verifier: String) {
                let (verifier, challenge) = OAuthHarness.pkce()
                let query = OAuthHarness.authorizeQuery(challenge: challenge, changes: ["client_id": "peer"])
                let (_, answer) = try OAuthHarness.location(try await o.consent(query))
                return (try #require(answer["code"]), verifier)
            }
            func redeem(_ form: [(String, String)], headers: [String: String] = [:]) async throws -> LoopbackHTTPClient.Reply {
                let (code, verifier) = try await code()
                return try await o.post(token, [("grant_type", "authorization_code"), ("code", code),
                                                ("redirect_uri", OAuthHarness.redirect), ("code_verifier", verifier)] + form,
                                        headers: headers)
            }

            let byBasic = try await redeem([], headers: Self.basic("peer", secret))
            #expect(byBasic.status == 200, "\(byBasic)")
            let byPost = try await redeem([("client_id", "peer"), ("client_secret", secret)])
            #expect(byPost.status == 200, "\(byPost)")
            // The refresh grant takes the secret too.
            let refresh = try #require(byPost.json["refresh_token"] as? String)
            OAuthHarness.expectError(try await o.post(token, [("grant_type", "refresh_token"), ("client_id", "peer"),
                                                              ("refresh_token", refresh)]), "invalid_client", status: 401)
            let refreshed = try await o.post(token, [("grant_type", "refresh_token"), ("refresh_token", refresh)],
                                             headers: Self.basic("peer", secret))
            #expect(refreshed.status == 200, "\(refreshed)")

            OAuthHarness.expectError(try await redeem([("client_id", "peer")]), "invalid_client", status: 401)
            OAuthHarness.expectError(try await redeem([("client_id", "peer"), ("client_secret", secret + "x")]),
                                     "invalid_client", status: 401)
            OAuthHarness.expectError(try await redeem([], headers: Self.basic("peer", "wrong-wrong-wrong-wrong")),
                                     "invalid_client", status: 401)
            OAuthHarness.expectError(try await redeem([("client_secret", secret)], headers: Self.basic("peer", secret)),
                                     "invalid_request")
            OAuthHarness.expectError(try await redeem([("client_id", "cli")], headers: Self.basic("peer", secret)),
                                     "invalid_client", status: 401)
            // A public client sending a secret is misconfigured, as before.
            OAuthHarness.expectError(try await o.post(token, [("grant_type", "refresh_token"), ("refresh_token", "x")],
                                                      headers: Self.basic("cli", secret)), "invalid_client", status: 401)

            let discovery = try await o.get(o.base + "/.well-known/openid-configuration")
            #expect(discovery.json["token_endpoint_auth_methods_supported"] as? [String] == ["none", "client_secret_basic", "client_secret_post"])
        }
    }

    @Test func theProgramMakesTheSecretAndNamesItInTheStartUpLine() async throws {
        let directory = try TemporaryDirectory.make(prefix: "confidential")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try DevServerProcess(arguments: ["--listen", "127.0.0.1:0", "--log-level", "warning",
                                                      "--oauth-confidential-client", "peer=http://127.0.0.1/callback"],
                                          directory: directory, name: "confidential")
        let o = OAuthHarness(try await server.waitForStartup())
        let secrets = try #require(server.startup["clientSecrets"] as? [String: String])
        let secret = try #require(secrets["peer"])
        #expect(secrets.count == 1)
        let (verifier, challenge) = OAuthHarness.pkce()
        let query = OAuthHarness.authorizeQuery(challenge: challenge, changes: ["client_id": "peer"])
        let (_, answer) = try OAuthHarness.location(try await o.consent(query))
        let reply = try await o.post(o.base + "/v1/token", [("grant_type", "authorization_code"), ("code", try #require(answer["code"])),
                                                            ("redirect_uri", OAuthHarness.redirect), ("code_verifier", verifier)],
                                     headers: Self.basic("peer", secret))
        #expect(reply.status == 200, "\(reply)")
        _ = try await server.terminate()
        #expect(!server.stderrText.contains(secret), "the secret is never logged")
    }
}
