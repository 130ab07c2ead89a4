import FoundationEssentials
import Hummingbird
import Logging

/// POST {issuer}/v1/token: client checks, then one of the four grants.
extension OAuthServer {
    static let deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"

    func token(_ request: Request) async -> Response {
        do {
            let fields = try await request.formFields()
            let client = try authenticatePublicClient(request, fields)
            let response: TokenResponse
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
            api.configuration.logger.error("token endpoint failed", metadata: ["error.type": "\(type(of: error))"])
            return OAuthResponse.error(OAuthError(error: "server_error", description: "The token could not be issued.",
                                                  status: .internalServerError))
        }
    }

    /// Public clients (`token_endpoint_auth_method: none`) identify themselves
    /// by `client_id` alone; a secret or an Authorization header is refused
    /// rather than ignored, since a client sending one is misconfigured.
    func authenticatePublicClient(_ request: Request, _ fields: FormFields) throws(OAuthError) -> OAuthClient {
        guard request.headers[.authorization] == nil, fields["client_secret"] == nil, fields["client_assertion"] == nil else {
            throw .invalidClient("Clients here are public (token_endpoint_auth_method none): send client_id, no secret.")
        }
        guard let clientId = fields["client_id"] else { throw .invalidClient("client_id is required.") }
        guard let client = clients[clientId] else { throw .invalidClient("Unknown client_id.") }
        return client
    }
}
