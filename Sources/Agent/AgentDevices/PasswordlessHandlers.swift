import AgentProtocol
import AgentRuntime
import Passwordless
import Settings
import WebAuthn

extension DevicesCapability {
    package func registerPasswordless(into table: inout MethodTable.Builder) {
        table.register(PasskeyRegisterMethod.self) { params, interaction in
            let ceremonies = try self.passwordless(params.server)
            let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
            return try await self.devices.withDevice(params.device) { device in
                try await ceremonies.register(token: params.token, nickname: params.nickname, on: device,
                                              pin: params.pin, interaction: guarded)
            }
        }
        table.register(PasskeySignInMethod.self) { params, interaction in
            let account = try Self.account(params)
            let ceremonies = try self.passwordless(params.server)
            let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
            return try await self.devices.withDevice(params.device) { device in
                try await ceremonies.signIn(account, user: params.user, on: device, pin: params.pin, interaction: guarded)
            }
        }
    }

    /// The app from config.toml's [passwordless] table, with the request's overrides on top.
    package func passwordless(_ overrides: PasswordlessOverrides?) throws -> PasswordlessCeremonies {
        let configured = settings.passwordless
        let resolved = try PasswordlessSettings(apiURL: overrides?.apiUrl ?? configured.apiURL,
                                                apiKey: overrides?.apiKey ?? configured.apiKey,
                                                rpId: overrides?.rpId ?? configured.rpId,
                                                origin: overrides?.origin ?? configured.origin)
        return PasswordlessCeremonies(api: PasswordlessAPI(settings: resolved, transport: http))
    }

    package static func account(_ params: PasskeySignInMethod.Params) throws(AgentError) -> PasswordlessCeremonies.Account {
        let chosen = [params.alias != nil, params.userId != nil, params.discoverable == true].filter { $0 }.count
        guard chosen == 1 else {
            throw AgentError(.invalidParams, "give exactly one of alias, userId and discoverable: true")
        }
        if let alias = params.alias { return .alias(alias) }
        if let userId = params.userId { return .userId(userId) }
        return .discoverable
    }
}
