import AgentProtocol
import AgentRuntime
import FIDO
import Interaction
import WebAuthn
import WebAuthnClient

extension DevicesCapability {
    package func registerWebAuthn(into table: inout MethodTable.Builder) {
        table.register(WebAuthnCreateMethod.self) { params, interaction in
            try await self.webauthnCreate(params, interaction: interaction)
        }
        table.register(WebAuthnGetMethod.self) { params, interaction in
            try await self.webauthnGet(params, interaction: interaction)
        }
    }

    package func webauthnCreate(_ params: WebAuthnCreateMethod.Params,
                        interaction: any UserInteraction) async throws(AgentError) -> RegistrationResponseJSON {
        do {
            let ceremony = CreateCredential(options: params.options, origin: try WebAuthnOrigin(params.origin))
            _ = try ceremony.checkedRelyingPartyId()  // before the request waits for a key
            let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
            return try await devices.withDevice(params.device) { device in
                try await ceremony.run(on: device, pin: params.pin, interaction: guarded)
            }
        } catch {
            throw AgentError(error)
        }
    }

    package func webauthnGet(_ params: WebAuthnGetMethod.Params,
                     interaction: any UserInteraction) async throws(AgentError) -> AuthenticationResponseJSON {
        do {
            let ceremony = GetCredential(options: params.options, origin: try WebAuthnOrigin(params.origin),
                                         account: params.user)
            _ = try ceremony.checkedRelyingPartyId()  // before the request waits for a key
            let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
            return try await devices.withDevice(params.device) { device in
                try await ceremony.run(on: device, pin: params.pin, interaction: guarded)
            }
        } catch {
            throw AgentError(error)
        }
    }
}
