import AgentDevices
import AgentProtocol
import AgentRuntime
import BeyondIdentity
import OktaIDX
import WebAuthnClient
import WebAuthnJSON

/// What the identity libraries borrow from the agent for one call: the
/// person and the key. OktaIDX's loop (`IDXKeyCeremony`) and BeyondIdentity's
/// invoke flow (`InvokeCeremony`) decide when a credential is made or an
/// assertion got; it runs on the device broker's key through libfido2
/// (WebAuthnClient) with the PIN given, and asks the person through the
/// client (`GuardedInteraction`: a question wording from `InvokeConfirmation`).
struct KeyCeremony: IDXKeyCeremony, InvokeCeremony {
    let devices: DeviceBroker
    let device: DeviceChoice?
    let pin: String?
    let interaction: GuardedInteraction

    func create(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String) async throws -> RegistrationResponseJSON {
        let ceremony = CreateCredential(options: options, origin: try WebAuthnOrigin(origin))
        return try await devices.withDevice(device) { device in
            try await ceremony.run(on: device, pin: pin, interaction: interaction)
        }
    }

    func get(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String) async throws -> AuthenticationResponseJSON {
        let ceremony = GetCredential(options: options, origin: try WebAuthnOrigin(origin))
        return try await devices.withDevice(device) { device in
            try await ceremony.run(on: device, pin: pin, interaction: interaction)
        }
    }

    func allow(_ question: InvokeQuestion) async throws -> Bool {
        switch question {
        case .signIn(let request, let application):
            return try await interaction.confirm(InvokeConfirmation.signIn(request, application: application))
        case .binding(let options, let application):
            return try await interaction.confirm(InvokeConfirmation.binding(options, application: application))
        }
    }
}
