import AgentProtocol
import AgentRuntime
import Base64
import FIDO
import Interaction
import Tokens
import WebAuthn

/// `credentials.list` and `credentials.delete`: the passkeys stored on a key,
/// through its credential management, on any device the broker opens.
extension DevicesCapability {
    package func registerCredentials(into table: inout MethodTable.Builder) {
        table.register(CredentialsListMethod.self) { params, interaction in
            try await self.listCredentials(params, interaction: interaction)
        }
        table.register(CredentialsDeleteMethod.self) { params, interaction in
            try await self.deleteCredential(params, interaction: interaction)
        }
    }

    package func listCredentials(_ params: CredentialsListMethod.Params,
                         interaction: any UserInteraction) async throws -> CredentialList {
        if let rpId = params.rpId {
            guard (1...253).contains(rpId.utf8.count), TokenError.sanitised(rpId) == rpId else {
                throw AgentError(.invalidInput, "rpId is a relying party id (a domain of at most 253 characters, such as example.org)")
            }
        }
        let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
        let exchange = PINExchange(interaction: guarded, givenPIN: params.pin)
        let what = params.rpId.map { "the passkeys it holds for \($0)" } ?? "the passkeys it holds"
        return try await devices.withDevice(params.device) { device in
            try await exchange.run(on: device, needsPIN: Self.credentialManagementNeedsPIN(device),
                                   reason: "The security key needs its PIN to list \(what).") { pin in
                try await device.perform { device throws(FIDOError) in
                    let progress: @Sendable (ProgressStage) -> Void = { guarded.progress($0) }
                    let count = try device.discoverableCredentialCount(pin: pin, progress: progress)
                    let credentials: [ManagedCredential]
                    if let rpId = params.rpId {
                        credentials = try device.managedCredentials(rpId: rpId, pin: pin, progress: progress)
                    } else {
                        credentials = try device.managedCredentials(pin: pin, progress: progress)
                    }
                    return CredentialList(credentials: credentials.map(StoredCredential.init),
                                          existing: count.existing, remaining: count.remaining)
                }
            }
        }
    }

    /// Deletes by id without listing first: each credential management
    /// command costs a fingerprint on a biometric key. The key's
    /// CTAP2_ERR_NO_CREDENTIALS is an unknown id.
    package func deleteCredential(_ params: CredentialsDeleteMethod.Params,
                          interaction: any UserInteraction) async throws -> DeletedCredential {
        let text = params.credentialId
        // WebAuthn credential ids are at most 1023 bytes: 1364 base64url characters.
        guard text.utf8.count <= 1364, let id = Base64URL.decode(text, padding: .tolerated), !id.isEmpty else {
            throw AgentError(.invalidInput, "credentialId is not a base64url credential id (as `passkey credentials list` shows them)")
        }
        let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
        let exchange = PINExchange(interaction: guarded, givenPIN: params.pin)
        let notOnKey = AgentError(.notFound, "no passkey with credential id \(text) is on this security key")
        return try await devices.withDevice(params.device) { device in
            try await exchange.run(on: device, needsPIN: Self.credentialManagementNeedsPIN(device),
                                   reason: "The security key needs its PIN to delete a passkey.") { pin in
                let deleted = try await device.perform { device throws(FIDOError) -> Bool in
                    let progress: @Sendable (ProgressStage) -> Void = { guarded.progress($0) }
                    do throws(FIDOError) {
                        try device.deleteManagedCredential(id: id, pin: pin, progress: progress)
                    } catch .noCredentials {
                        return false
                    }
                    return true
                }
                guard deleted else { throw notOnKey }
                return DeletedCredential(credentialId: Base64URL.encode(id))
            }
        }
    }

    /// The PIN is asked for up front unless the key verifies users itself
    /// (then a fingerprint it does not recognise falls back to the PIN).
    package static func credentialManagementNeedsPIN(_ device: FIDODevice) -> Bool {
        device.info.hasPIN && !device.managesCredentialsWithoutPIN
    }
}

extension StoredCredential {
    /// The names come from whichever website registered the passkey: their
    /// control characters (terminal escapes) are dropped before any client prints them.
    package init(_ credential: ManagedCredential) {
        self.init(rpId: TokenError.sanitised(credential.rpId) ?? "", rpName: TokenError.sanitised(credential.rpName),
                  credentialId: Base64URL.encode(credential.credentialId),
                  userHandle: Base64URL.encode(credential.userId),
                  userName: TokenError.sanitised(credential.userName), userDisplayName: TokenError.sanitised(credential.userDisplayName),
                  credProtect: credential.credProtect.flatMap { level in
                      CredentialProtectionPolicy.allCases.first { $0.ctapValue == level }?.rawValue
                  },
                  largeBlobKey: credential.hasLargeBlobKey)
    }
}
