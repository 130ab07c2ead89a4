import FIDO
import Interaction
import WebAuthn
import WebAuthnClient

/// The iOS SDK's `register(token:)` and `signIn(…)`, with a security key:
/// begin on the server, run the WebAuthn ceremony on the key, complete on
/// the server, and hand back the verify token for the app's backend.
public struct PasswordlessCeremonies: Sendable {
    public let api: PasswordlessAPI

    public init(api: PasswordlessAPI) { self.api = api }

    public struct Registration: Sendable, Codable, Equatable {
        /// The `verify_…` token for `/signin/verify`.
        public var token: String
        public var credentialId: String
        public var rpId: String
        public var origin: String
        public var nickname: String?
        /// Stored on the key as a discoverable credential (credProps.rk).
        public var residentKey: Bool?
        public var transports: [String]
        public var authenticatorAttachment: String?
    }

    public struct SignIn: Sendable, Codable, Equatable {
        public var token: String
        public var credentialId: String
        /// The user handle (base64url) the key returned, for discoverable credentials.
        public var userHandle: String?
        public var rpId: String
        public var origin: String
        /// How many credentials the server named for the account asked for
        /// (`allowCredentials`). 0 for an alias or user id it does not know:
        /// passwordless.dev answers as for a discoverable sign-in, and the key
        /// then signs in with a passkey of its own choosing.
        public var offeredCredentials: Int
    }

    /// How to find the account: by alias, by user id, or let the key offer its discoverable credentials.
    public enum Account: Sendable, Equatable {
        case alias(String)
        case userId(String)
        case discoverable
    }

    public func register(token: String, nickname: String?, on device: FIDODevice, pin: String?,
                         interaction: any UserInteraction) async throws -> Registration {
        let begun = try await api.registerBegin(token: token)
        let origin: WebAuthnOrigin
        do { origin = try WebAuthnOrigin(api.settings.origin) } catch { throw PasswordlessError.ceremony(error) }
        let response: RegistrationResponseJSON
        do {
            response = try await CreateCredential(options: begun.data, origin: origin)
                .run(on: device, pin: pin, interaction: interaction)
        } catch let error as CeremonyError {
            throw PasswordlessError.ceremony(error)
        }
        let verifyToken = try await api.registerComplete(session: begun.session, response: response, nickname: nickname)
        return Registration(token: verifyToken, credentialId: response.id, rpId: api.settings.rpId,
                            origin: api.settings.origin, nickname: nickname,
                            residentKey: response.clientExtensionResults.credProps?.rk,
                            transports: response.response.transports.map(\.rawValue),
                            authenticatorAttachment: response.authenticatorAttachment?.rawValue)
    }

    /// `user` picks among several discoverable credentials (name, display name or handle).
    public func signIn(_ account: Account, user: String?, on device: FIDODevice, pin: String?,
                       interaction: any UserInteraction) async throws -> SignIn {
        let begun: PasswordlessAPI.Begun<PublicKeyCredentialRequestOptionsJSON>
        switch account {
        case .alias(let alias): begun = try await api.signinBegin(alias: alias, userId: nil)
        case .userId(let userId): begun = try await api.signinBegin(alias: nil, userId: userId)
        case .discoverable: begun = try await api.signinBegin(alias: nil, userId: nil)
        }
        let origin: WebAuthnOrigin
        do { origin = try WebAuthnOrigin(api.settings.origin) } catch { throw PasswordlessError.ceremony(error) }
        let response: AuthenticationResponseJSON
        do {
            response = try await GetCredential(options: begun.data, origin: origin, account: user)
                .run(on: device, pin: pin, interaction: interaction)
        } catch let error as CeremonyError {
            throw PasswordlessError.ceremony(error)
        }
        let verifyToken = try await api.signinComplete(session: begun.session, response: response)
        return SignIn(token: verifyToken, credentialId: response.id,
                      userHandle: response.response.userHandle?.base64URL,
                      rpId: api.settings.rpId, origin: api.settings.origin,
                      offeredCredentials: begun.data.allowCredentials.count)
    }
}
