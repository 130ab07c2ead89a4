import Crypto
import DevServerBase
import FoundationEssentials
import Hummingbird
import Logging

/// POST {issuer}/v1/token: client checks, then one of the four grants.
extension OAuthServer {
    static let deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"

    func token(_ request: Request) async -> Response {
        do {
            let fields = try await request.formFields()
            let client = try authenticateClient(request, fields)
            let response: IssuedTokenResponse
            switch fields["grant_type"] {
            case nil: throw OAuthError.invalidRequest("grant_type is required.")
            case "authorization_code": response = try await codeGrant(fields, client: client)
            case "refresh_token": response = try await refreshGrant(fields, client: client)
            case Self.deviceCodeGrant: response = try await deviceGrant(fields, client: client)
            case Self.interactionCodeGrant: response = try await interactionCodeGrant(fields, client: client)
            default:
                throw OAuthError(error: "unsupported_grant_type",
                                 description: "Supported: authorization_code, refresh_token, \(Self.deviceCodeGrant), \(Self.interactionCodeGrant).")
            }
            return OAuthResponse.json(response)
        } catch let error as OAuthError {
            return OAuthResponse.error(error)
        } catch {
            logger.error("token endpoint failed", metadata: ["error.type": "\(type(of: error))"])
            return OAuthResponse.error(OAuthError(error: "server_error", description: "The token could not be issued.",
                                                  status: .internalServerError))
        }
    }

    /// The client, authenticated as it was registered: a public client
    /// (`token_endpoint_auth_method: none`) by `client_id` alone — a secret
    /// from it is refused rather than ignored, since a client sending one is
    /// misconfigured — and a confidential one by its secret, through
    /// exactly one of `client_secret_basic` and `client_secret_post`.
    package func authenticateClient(_ request: Request, _ fields: FormFields) throws(OAuthError) -> OAuthClient {
        let presented = try ClientCredentials.presented(request, fields)
        guard let client = clients[presented.clientId] else { throw .invalidClient("Unknown client_id.") }
        switch (client.secret, presented.secret) {
        case (nil, nil):
            return client
        case (nil, _?):
            throw .invalidClient("This client is public (token_endpoint_auth_method none): send client_id, no secret.")
        case (_?, nil):
            throw .invalidClient("This client is confidential: send its secret (client_secret_basic or client_secret_post).")
        case (let expected?, let given?):
            // Digests compare in constant time; the secrets' lengths are not given away either.
            guard SHA256.hash(data: Array(given.utf8)) == SHA256.hash(data: Array(expected.utf8)) else {
                throw .invalidClient("The client secret is wrong.")
            }
            return client
        }
    }
}
