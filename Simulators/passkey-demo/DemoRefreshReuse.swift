import AgentProtocol
import FoundationEssentials
import HTTPTransport
import OpenID
import URLPolicy

/// The refresh token's rotation seen from outside. The agent never lets a
/// refresh token out, so to show the server refusing a spent one the demo
/// acts as an app of its own: it signs alice in (authorization code with
/// PKCE, the demo at the browser too), hands the tokens to the agent with
/// `token put`, lets the agent refresh — which rotates the refresh token —
/// and then presents the old refresh token itself.
struct DemoRefreshReuse {
    let world: DemoWorld
    let say: DemoNarrator

    private struct CodeGrantAnswer: Decodable {
        let access_token: String
        let refresh_token: String?
        let expires_in: Int?
    }

    private struct ErrorResponse: Decodable { let error: String }

    func run() async throws(AgentError) -> String {
        let issuer = world.server.issuer
        let tokenEndpoint = issuer + "/v1/token"
        let redirect = "http://127.0.0.1:9/callback"
        let pkce = PKCE()
        say.step("An app of the demo's own signs alice in (code + PKCE) and hands the tokens to the agent: passkey token put rotation")
        let authorize = issuer + "/v1/authorize?response_type=code&client_id=cli&redirect_uri=" + PercentEncoding.encode(redirect)
            + "&scope=openid%20offline_access&state=demo-state&nonce=demo-nonce&code_challenge=\(pkce.challenge)&code_challenge_method=S256"
        let callback = try await DemoBrowser(transport: world.transport).consent(authorize, user: "alice")
        guard let code = URLComponents(string: callback)?.queryItems?.first(where: { $0.name == "code" })?.value else {
            throw AgentError(.serverError, "the provider's redirect carries no code")
        }
        let first = try await post(tokenEndpoint, [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                                                   ("client_id", "cli"), ("code_verifier", pkce.verifier)])
        guard let tokens = try? JSONDecoder().decode(CodeGrantAnswer.self, from: Data(first.body)), let old = tokens.refresh_token else {
            throw AgentError(.serverError, "the token endpoint gave no refresh token (HTTP \(first.status))")
        }
        try await world.require(["token", "put", "rotation"], input: """
            {"access_token":"\(tokens.access_token)","token_type":"Bearer","expires_in":\(tokens.expires_in ?? 120),\
            "refresh_token":"\(old)","issuer":"\(issuer)","client_id":"cli","token_endpoint":"\(tokenEndpoint)"}
            """)
        say.step("passkey token get rotation --min-valid 300  (the agent refreshes; the server rotates the refresh token)")
        let refreshed = try await world.require(["token", "get", "rotation", "--min-valid", "300"]).output
        guard refreshed != tokens.access_token else { throw AgentError(.internal, "the agent did not refresh") }
        say.step("The app presents the old refresh token at \(tokenEndpoint)")
        let reused = try await post(tokenEndpoint, [("grant_type", "refresh_token"), ("refresh_token", old), ("client_id", "cli")])
        let refusal = (try? JSONDecoder().decode(ErrorResponse.self, from: Data(reused.body)))?.error
        guard reused.status == 400, refusal == "invalid_grant" else {
            throw AgentError(.internal, "the server accepted a spent refresh token (HTTP \(reused.status))")
        }
        say.detail("→ HTTP 400 invalid_grant: a spent refresh token is refused, and its whole family revoked (refresh token rotation, RFC 9700)")
        let after = try await world.passkey(["token", "get", "rotation", "--min-valid", "300"])
        guard after.status != 0 else { throw AgentError(.internal, "the revoked family still refreshed") }
        say.detail("→ the agent's rotated token went with it: `token get` now says \(after.standardError.split(separator: "\n").first ?? "")")
        return "the old refresh token was refused (invalid_grant) once the agent had rotated it"
    }

    private func post(_ url: String, _ fields: [(String, String)]) async throws(AgentError) -> HTTPTransport.Response {
        do {
            return try await world.transport.postForm(url, fields)
        } catch {
            throw AgentError(.networkError, "\(error)")
        }
    }
}
