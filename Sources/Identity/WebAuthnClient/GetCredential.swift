import Base64
import Crypto
import FIDO
import Interaction
import WebAuthn

/// The client half of WebAuthn authentication (`navigator.credentials.get`,
/// WebAuthn L3 §5.1.4) for a security key.
public struct GetCredential: Sendable {
    public var options: PublicKeyCredentialRequestOptionsJSON
    public var origin: WebAuthnOrigin
    /// Which account to use when several discoverable credentials match:
    /// a user name, display name, or base64url user handle.
    public var account: String?

    public init(options: PublicKeyCredentialRequestOptionsJSON, origin: WebAuthnOrigin, account: String? = nil) {
        self.options = options
        self.origin = origin
        self.account = account
    }

    /// What can be checked before any key is touched: the origin may use the
    /// RP ID and the challenge is long enough. Returns the RP ID; `run` checks
    /// it too, and the agent calls it first (see `CreateCredential`).
    public func checkedRelyingPartyId() throws(CeremonyError) -> String {
        let rpId = try origin.relyingPartyId(options.rpId)
        guard options.challenge.bytes.count >= 16 else {
            throw .invalidOptions("challenge must be at least 16 bytes")
        }
        return rpId
    }

    public func run(on device: FIDODevice, pin givenPIN: String?,
                    interaction: any UserInteraction) async throws -> AuthenticationResponseJSON {
        let rpId = try checkedRelyingPartyId()
        let clientData = CollectedClientData(type: .get, challenge: options.challenge.bytes,
                                             origin: origin.serialization).json
        let verification = try UserVerificationPlan(requirement: options.userVerification ?? .preferred,
                                                    residentKey: false, device: device.info)
        var salts: [[UInt8]] = []
        if let hmac = options.extensions?.hmacGetSecret, device.info.supportsHMACSecret {
            salts = [hmac.salt1.bytes] + (hmac.salt2.map { [$0.bytes] } ?? [])
            guard salts.allSatisfy({ $0.count == 32 }) else {
                throw CeremonyError.invalidOptions("hmacGetSecret salts must be 32 bytes each")
            }
        }
        let request = GetAssertionRequest(
            rpId: rpId, clientDataHash: Array(SHA256.hash(data: clientData)),
            allowCredentialIds: options.allowCredentials.map(\.id.bytes),
            userVerification: verification.verify, hmacSalts: salts)

        let assertions = try await PINExchange(interaction: interaction, givenPIN: givenPIN)
            .ceremony(on: device, needsPIN: verification.needsPIN, reason: "to sign in to \(rpId)") { (pin) async throws(FIDOError) in
            try await device.perform { device throws(FIDOError) in
                try device.getAssertion(request, pin: pin, progress: { interaction.progress($0) })
            }
        }
        let chosen = try await choose(from: assertions, interaction: interaction)

        var outputs = AuthenticationExtensionsClientOutputsJSON()
        if let secret = chosen.hmacSecret, secret.count >= 32 {
            outputs.hmacGetSecret = HMACGetSecretOutputJSON(
                output1: Base64URLBytes(Array(secret[0..<32])),
                output2: secret.count >= 64 ? Base64URLBytes(Array(secret[32..<64])) : nil)
        }
        return AuthenticationResponseJSON(
            rawId: chosen.credentialId,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: clientData, authenticatorData: chosen.authenticatorData,
                signature: chosen.signature, userHandle: chosen.userHandle),
            authenticatorAttachment: .crossPlatform,
            clientExtensionResults: outputs)
    }

    /// Picks one assertion: the only one, the one `account` names, or the one the person chooses.
    func choose(from assertions: [Assertion], interaction: any UserInteraction) async throws -> Assertion {
        guard let first = assertions.first else { throw CeremonyError.authenticator(.noCredentials) }
        if assertions.count == 1 { return first }
        let choices = assertions.map {
            AccountChoice(name: $0.userName, displayName: $0.userDisplayName,
                          userHandle: $0.userHandle.map { Base64URL.encode($0) })
        }
        if let account {
            let index = choices.firstIndex { $0.name == account }
                ?? choices.firstIndex { $0.displayName == account }
                ?? choices.firstIndex { $0.userHandle == account }
            guard let index else { throw CeremonyError.noSuchAccount(account, available: choices.map(\.label)) }
            return assertions[index]
        }
        let index = try await interaction.chooseAccount(choices)
        guard assertions.indices.contains(index) else { throw CeremonyError.cancelled }
        return assertions[index]
    }
}
