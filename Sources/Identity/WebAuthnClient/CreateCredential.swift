import Crypto
import FIDO
import Interaction
import WebAuthn

/// The client half of WebAuthn registration (`navigator.credentials.create`,
/// WebAuthn L3 §5.1.3) for a security key: options JSON in,
/// RegistrationResponseJSON out, libfido2 in between.
public struct CreateCredential: Sendable {
    public var options: PublicKeyCredentialCreationOptionsJSON
    public var origin: WebAuthnOrigin

    public init(options: PublicKeyCredentialCreationOptionsJSON, origin: WebAuthnOrigin) {
        self.options = options
        self.origin = origin
    }

    /// What can be checked before any key is touched: the origin may use the
    /// RP ID, `user.id` and the challenge have lengths WebAuthn allows, and no
    /// platform authenticator is demanded. Returns the RP ID. `run` checks it
    /// too; the agent calls it first, so a bad request is refused at once
    /// instead of waiting its turn for a key (or failing for want of one).
    public func checkedRelyingPartyId() throws(CeremonyError) -> String {
        let rpId = try origin.relyingPartyId(options.rp.id)
        guard !options.user.id.bytes.isEmpty, options.user.id.bytes.count <= 64 else {
            throw .invalidOptions("user.id must be 1 to 64 bytes (it is \(options.user.id.bytes.count))")
        }
        guard options.challenge.bytes.count >= 16 else {
            throw .invalidOptions("challenge must be at least 16 bytes")
        }
        // A security key is a roaming (cross-platform) authenticator. A site
        // that insists on the platform's own authenticator cannot be served;
        // hints are preferences and only choose among what fits.
        if options.authenticatorSelection?.authenticatorAttachment == .platform {
            throw .authenticator(.unsupportedOption(
                "the platform's own authenticator (the site asks for authenticatorAttachment \"platform\"); passkey-agent uses security keys"))
        }
        return rpId
    }

    /// Runs the ceremony on `device`. `pin`, when given, is used first;
    /// otherwise `interaction` is asked when the key needs one.
    public func run(on device: FIDODevice, pin givenPIN: String?,
                    interaction: any UserInteraction) async throws -> RegistrationResponseJSON {
        let rpId = try checkedRelyingPartyId()
        let algorithms = options.pubKeyCredParams.isEmpty
            ? [COSEAlgorithm.es256, .rs256]  // §5.1.3 step 10: the default list
            : options.pubKeyCredParams.filter { $0.type == "public-key" }.compactMap(\.algorithm)
        let clientData = CollectedClientData(type: .create, challenge: options.challenge.bytes,
                                             origin: origin.serialization).json
        let selection = options.authenticatorSelection
        let residentKey = Self.wantsResidentKey(selection?.effectiveResidentKey ?? .discouraged, device: device.info)
        if selection?.effectiveResidentKey == .required && !device.info.supportsDiscoverableCredentials {
            throw CeremonyError.authenticator(.unsupportedOption("discoverable credentials (residentKey: required)"))
        }
        let extensions = options.extensions
        var request = MakeCredentialRequest(
            clientDataHash: Array(SHA256.hash(data: clientData)), rpId: rpId, rpName: options.rp.name,
            userId: options.user.id.bytes, userName: options.user.name, userDisplayName: options.user.displayName,
            algorithms: algorithms, excludeCredentialIds: options.excludeCredentials.map(\.id.bytes),
            residentKey: residentKey,
            credProtect: extensions?.credentialProtectionPolicy.flatMap { device.info.supportsCredProtect ? $0.ctapValue : nil },
            hmacSecret: extensions?.hmacCreateSecret == true && device.info.supportsHMACSecret)
        if extensions?.enforceCredentialProtectionPolicy == true, let policy = extensions?.credentialProtectionPolicy,
           policy != .userVerificationOptional, !device.info.supportsCredProtect {
            throw CeremonyError.authenticator(.unsupportedOption("the credProtect extension the site requires"))
        }
        let verification = try UserVerificationPlan(requirement: selection?.userVerification ?? .preferred,
                                                residentKey: residentKey, device: device.info)
        request.userVerification = verification.verify
        let makeCredential = request

        let result = try await PINExchange(interaction: interaction, givenPIN: givenPIN)
            .ceremony(on: device, needsPIN: verification.needsPIN, reason: "to register with \(rpId)") { (pin) async throws(FIDOError) in
            try await device.perform { device throws(FIDOError) in
                try device.makeCredential(makeCredential, pin: pin, progress: { interaction.progress($0) })
            }
        }

        // `none` is also what an absent preference means (§5.4, its default).
        let preference: AttestationConveyancePreference = options.attestation ?? AttestationConveyancePreference.none
        let (attestationObject, authenticatorData) = preference == AttestationConveyancePreference.none
            ? try NoneAttestation.anonymized(attestationObject: result.attestationObject)
            : (result.attestationObject, result.authenticatorData)
        let authData = try AuthenticatorData(bytes: authenticatorData)
        var outputs = AuthenticationExtensionsClientOutputsJSON()
        if extensions?.credProps == true { outputs.credProps = CredentialPropertiesOutputJSON(rk: result.residentKey) }
        if extensions?.hmacCreateSecret == true {
            outputs.hmacCreateSecret = authData.extensions?["hmac-secret"]?.boolValue == true
        }
        let publicKey = authData.attestedCredentialData?.publicKey
        return RegistrationResponseJSON(
            rawId: result.credentialId,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: clientData, attestationObject: attestationObject,
                authenticatorData: authenticatorData,
                transports: Self.transports(of: device),
                publicKey: publicKey.flatMap(SubjectPublicKeyInfo.der(for:)),
                publicKeyAlgorithm: result.algorithm.rawValue),
            authenticatorAttachment: .crossPlatform,
            clientExtensionResults: outputs)
    }

    /// residentKey "preferred" means discoverable when the key can (§5.1.3 step 20).
    static func wantsResidentKey(_ requirement: ResidentKeyRequirement, device: AuthenticatorInfo) -> Bool {
        switch requirement {
        case .required: return true
        case .preferred: return device.supportsDiscoverableCredentials
        case .discouraged: return false
        }
    }

    static func transports(of device: FIDODevice) -> [AuthenticatorTransport] {
        let listed = device.info.transports.map(AuthenticatorTransport.init(rawValue:))
        return listed.isEmpty ? [.usb] : listed.sorted { $0.rawValue < $1.rawValue }
    }
}
