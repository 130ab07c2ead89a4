import FIDO
import Interaction
import Reports
import WebAuthn
import WebAuthnClient

/// The iOS SDK's `register(token:)` and `signIn(…)`, with a security key:
/// begin on the server, run the WebAuthn ceremony on the key, complete on
/// the server, and hand back the verify token for the app's backend.
public struct PasswordlessCeremonies: Sendable {
    public let api: PasswordlessAPI

    public init(api: PasswordlessAPI) { self.api = api }

    /// How to find the account: by alias, by user id, or let the key offer its discoverable credentials.
    public enum Account: Sendable, Equatable {
        case alias(String)
        case userId(String)
        case discoverable
    }

    public func register(token: String, nickname: String?, on device: FIDODevice, pin: String?,
                         interaction: any UserInteraction) async throws -> PasskeyRegistration {
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
        return PasskeyRegistration(token: verifyToken, credentialId: response.id, rpId: api.settings.rpId,
                            origin: api.settings.origin, nickname: nickname,
                            residentKey: response.clientExtensionResults.credProps?.rk,
                            transports: response.response.transports.map(\.rawValue),
                            authenticatorAttachment: response.authenticatorAttachment?.rawValue)
    }

    /// `user` picks among several discoverable credentials (name, display name or handle).
    public func signIn(_ account: Account, user: String?, on device: FIDODevice, pin: String?,
                       interaction: any UserInteraction) async throws -> PasskeySignIn {
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
        let userHandle = response.response.userHandle
        return PasskeySignIn(token: verifyToken, credentialId: response.id, userHandle: userHandle?.base64URL,
                             rpId: api.settings.rpId, origin: api.settings.origin,
                             userId: userHandle.flatMap(Self.printableUserId),
                             offeredCredentials: begun.data.allowCredentials.count)
    }

    /// The user handle as text, when it is UTF-8 without control characters:
    /// it comes from the key and is printed on a terminal. (WebAuthn bounds
    /// a user handle to 64 bytes; the decoder checked that.)
    static func printableUserId(_ handle: Base64URLBytes) -> String? {
        guard let text = String(validating: handle.bytes, as: UTF8.self), !text.isEmpty,
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        return text
    }
}
