import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import FoundationEssentials
import OktaIDX
import Tokens
import WebAuthnClient
import WebAuthnJSON

/// One Okta IDX sign-in in flight in the agent: the account's plan, its
/// deadline, and OktaIDX's `IDXSignIn`, which holds the sign-in's secrets
/// (in this process's memory only) and runs the remediation loop.
package final class IDXLogin: Sendable {
    package let plan: LoginPlan
    package let signIn: IDXSignIn
    /// Seconds since 1970 after which the sign-in is given up.
    package let expiresAt: Int64

    package init(plan: LoginPlan, signIn: IDXSignIn, expiresAt: Int64) {
        self.plan = plan
        self.signIn = signIn
        self.expiresAt = expiresAt
    }

    package var isExpired: Bool { TokenSet.now() >= expiresAt }
}

/// The security key's steps of one call, as OktaIDX asks for them: on the
/// device broker's key through libfido2 (WebAuthnClient), with the PIN given
/// and the person's prompts; the origin is the issuer's.
struct DeviceKeyCeremony: IDXKeyCeremony {
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
}
