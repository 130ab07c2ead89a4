import DevServerBase
import Hummingbird

/// POST BI/v1/tenants/t1/realms/r1/identities (ApiSecret): adds a person to
/// realm r1, Beyond Identity's shape
/// `{"identity":{"display_name","traits":{"username","primary_email_address"}}}`.
extension BIServer {
    struct Traits: Codable, Sendable {
        var username: String?
        var primary_email_address: String?
    }

    struct IdentityBody: Decodable {
        struct Identity: Decodable { var display_name: String?; var traits: Traits? }
        var identity: Identity?
    }

    struct IdentityAnswer: Encodable {
        let id: String
        let display_name: String
        let traits: Traits
    }

    func createIdentity(_ request: Request) async -> Response {
        do {
            let body = try await BIRequestBody.decode(IdentityBody.self, from: request)
            guard let identity = body.identity else { throw BIError.invalidRequest("identity is required.") }
            guard let username = identity.traits?.username, BIIdentity.isValidUsername(username) else {
                throw BIError.invalidRequest("identity.traits.username is required: 1 to 128 printable characters.")
            }
            let displayName = identity.display_name ?? username
            guard BIIdentity.isValidUsername(displayName) else {
                throw BIError.invalidRequest("identity.display_name must be 1 to 128 printable characters.")
            }
            let email = identity.traits?.primary_email_address
            if let email, !BIIdentity.isValidUsername(email) || !email.contains("@") {
                throw BIError.invalidRequest("identity.traits.primary_email_address is not an email address.")
            }
            switch await store.addIdentity(displayName: displayName, username: username, email: email) {
            case .usernameTaken:
                throw BIError(code: "conflict", description: "An identity with this username exists in realm \(Self.realmId).", status: .conflict)
            case .full: throw BIError.busy
            case .added(let added):
                return OAuthResponse.json(IdentityAnswer(id: added.id, display_name: added.displayName,
                                                         traits: Traits(username: added.username, primary_email_address: added.email)))
            }
        } catch let error as BIError {
            return error.response
        } catch {
            return BIError(code: "server_error", description: "The identity could not be added.", status: .internalServerError).response
        }
    }
}
