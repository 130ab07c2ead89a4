import AgentProtocol
import Passwordless
import Settings
import WebAuthn

extension CoreServices {
    func registerPasswordless(into table: inout MethodTable.Builder) {
        table.register(PasskeyRegisterMethod.self) { params, interaction in
            let ceremonies = try self.passwordless(params.server)
            let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
            return try await self.devices.withDevice(params.device) { device in
                PasskeyRegistration(try await ceremonies.register(token: params.token, nickname: params.nickname, on: device,
                                                                  pin: params.pin, interaction: guarded))
            }
        }
        table.register(PasskeySignInMethod.self) { params, interaction in
            let account = try Self.account(params)
            let ceremonies = try self.passwordless(params.server)
            let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
            return try await self.devices.withDevice(params.device) { device in
                PasskeySignIn(try await ceremonies.signIn(account, user: params.user, on: device, pin: params.pin,
                                                          interaction: guarded))
            }
        }
    }

    /// The app from config.toml's [passwordless] table, with the request's overrides on top.
    func passwordless(_ overrides: PasswordlessOverrides?) throws -> PasswordlessCeremonies {
        let configured = settings.passwordless
        let resolved = try PasswordlessSettings(apiURL: overrides?.apiUrl ?? configured.apiURL,
                                                apiKey: overrides?.apiKey ?? configured.apiKey,
                                                rpId: overrides?.rpId ?? configured.rpId,
                                                origin: overrides?.origin ?? configured.origin)
        return PasswordlessCeremonies(api: PasswordlessAPI(settings: resolved, transport: http))
    }

    static func account(_ params: PasskeySignInMethod.Params) throws(AgentError) -> PasswordlessCeremonies.Account {
        let chosen = [params.alias != nil, params.userId != nil, params.discoverable == true].filter { $0 }.count
        guard chosen == 1 else {
            throw AgentError(.invalidParams, "give exactly one of alias, userId and discoverable: true")
        }
        if let alias = params.alias { return .alias(alias) }
        if let userId = params.userId { return .userId(userId) }
        return .discoverable
    }
}

/// The ceremonies' results as the methods' wire types.
extension PasskeyRegistration {
    init(_ registration: PasswordlessCeremonies.Registration) {
        self.init(token: registration.token, credentialId: registration.credentialId, rpId: registration.rpId,
                  origin: registration.origin, nickname: registration.nickname, residentKey: registration.residentKey,
                  transports: registration.transports, authenticatorAttachment: registration.authenticatorAttachment)
    }
}

extension PasskeySignIn {
    init(_ signIn: PasswordlessCeremonies.SignIn) {
        self.init(token: signIn.token, credentialId: signIn.credentialId, userHandle: signIn.userHandle,
                  rpId: signIn.rpId, origin: signIn.origin, userId: signIn.userHandle.flatMap(Self.printableUserId),
                  offeredCredentials: signIn.offeredCredentials)
    }

    /// The user handle as text, when it is UTF-8 without control characters:
    /// it comes from the key and is printed on a terminal. (WebAuthn bounds
    /// a user handle to 64 bytes; the decoder checked that.)
    static func printableUserId(_ handle: String) -> String? {
        guard let bytes = Base64URLBytes(base64URL: handle),
              let text = String(validating: bytes.bytes, as: UTF8.self), !text.isEmpty,
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        return text
    }
}
