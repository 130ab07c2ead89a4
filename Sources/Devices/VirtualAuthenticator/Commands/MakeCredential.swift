import CBOR
import WebAuthn

/// authenticatorMakeCredential (0x01, CTAP 2.1 §6.1), in the order of §6.1.2.
extension AuthenticatorEngine {
    func makeCredential(_ request: RequestMap, _ interaction: SimulatedUser) throws(CTAPStatus) -> CBOR {
        // Parse everything first: a malformed request must cost the user nothing.
        let clientDataHash = try request.requiredBytes(1)
        let rp = try request.requiredMap(2)
        let rpId = try rp.requiredText("id")
        let rpName = try rp.text("name")
        let user = try Self.parseUser(try request.requiredMap(3))
        let credentialParameters = try request.requiredArray(4)
        var excludeList: [CredentialDescriptor] = []
        if let items = try request.array(5) { excludeList = try CredentialDescriptor.parseList(items) }
        let extensions = try MakeCredentialExtensions(try request.map(6))
        let options = RequestOptions(try request.map(7))
        let pinUvAuthParam = try request.bytes(8)
        let protocolNumber = try request.unsigned(9)

        // Step 1: the touch probe.
        try answerTouchProbe(pinUvAuthParam, interaction)
        // Step 2.
        let version = try pinUvAuthProtocol(for: pinUvAuthParam, number: protocolNumber)
        // Step 3: the first supported algorithm, in the platform's order of preference.
        let algorithm = try Self.chooseAlgorithm(credentialParameters)

        // Step 5: options.
        let residentKey = try options.flag("rk") ?? false
        var userVerification = try options.flag("uv") ?? false
        if pinUvAuthParam != nil { userVerification = false }
        if userVerification && !configuration.builtInUV { throw .invalidOption }
        if try options.flag("up") == false { throw .invalidOption }

        // Step 7 (makeCredUvNotRqd): a non-discoverable credential may be made
        // without UV; a discoverable one on a protected authenticator needs it.
        // A biometric key then reads the fingerprint; a PIN-only key says PUAT_REQUIRED.
        if residentKey && isProtectedByUserVerification && !userVerification && pinUvAuthParam == nil {
            guard configuration.builtInUV else { throw .pinUvAuthTokenRequired }
            userVerification = true
        }
        // Step 8: enterprise attestation is not offered.
        if request.contains(0x0A) { throw .invalidParameter }

        // Step 11: user verification.
        let (userVerified, userPresent) = try verifyUser(
            pinUvAuthParam, version, builtInUVRequested: userVerification, clientDataHash: clientDataHash,
            permission: .makeCredential, rpId: rpId, interaction)

        // Step 12: excludeList. A credProtect-3 credential is invisible without UV.
        let rpIdHash = sha256(rpId)
        for descriptor in excludeList {
            guard let excluded = resolveCredential(id: descriptor.id, rpId: rpId, rpIdHash: rpIdHash),
                  excluded.credProtect.permits(userVerified: userVerified, namedInAllowList: true) else { continue }
            // Only after a touch, so a page cannot probe for credentials silently.
            try collectPresenceIfNeeded(alreadyPresent: userPresent, interaction)
            throw .credentialExcluded
        }

        // Step 14: user presence (always required for makeCredential).
        try collectPresenceIfNeeded(alreadyPresent: userPresent, interaction)
        if pinUvAuthParam != nil { token.consumeAfterUse() }

        // Steps 15–17: the credential.
        guard let key = CredentialKey.generate(algorithm) else { throw .unsupportedAlgorithm }
        let credProtect = extensions.credProtect ?? .userVerificationOptional
        let credRandoms = extensions.hmacSecret ? CredRandoms.generate() : nil
        let signCount = try nextSignatureCount()
        let credentialId: [UInt8]
        if residentKey {
            credentialId = try storeDiscoverable(key: key, rpId: rpId, rpName: rpName, user: user,
                                                 credProtect: credProtect, credRandoms: credRandoms)
        } else {
            credentialId = try state.wrapper.wrap(
                WrappedCredential(key: key, credProtect: credProtect, credRandoms: credRandoms), rpIdHash: rpIdHash)
        }

        var flags: AuthenticatorData.Flags = [.userPresent]
        if userVerified { flags.insert(.userVerified) }
        let authenticatorData = AuthenticatorData(
            rpIdHash: rpIdHash, flags: flags, signCount: signCount,
            attestedCredentialData: AttestedCredentialData(aaguid: configuration.aaguid,
                                                           credentialId: credentialId, publicKey: key.publicKey),
            extensions: extensions.outputs).encoded()

        // Attestation (WebAuthn L3 §8.2 packed self attestation, or none).
        switch configuration.attestation {
        case .packedSelf:
            let signature = try key.sign(authenticatorData + clientDataHash)
            return [1: "packed", 2: .bytes(authenticatorData),
                    3: ["alg": .int(key.algorithm.rawValue), "sig": .bytes(signature)]]
        case .none:
            return [1: "none", 2: .bytes(authenticatorData), 3: .map([:])]
        }
    }

    /// Stores a discoverable credential, replacing one of the same RP and user handle.
    private func storeDiscoverable(key: CredentialKey, rpId: String, rpName: String?, user: UserEntity,
                                   credProtect: CredProtect, credRandoms: CredRandoms?) throws(CTAPStatus) -> [UInt8] {
        let id = secureRandomBytes(32)
        try commit { (state) throws(CTAPStatus) in
            state.credentials.removeAll { $0.rpId == rpId && $0.user.id == user.id }
            guard state.credentials.count < AuthenticatorState.maximumDiscoverableCredentials else {
                throw .keyStoreFull
            }
            state.credentials.append(DiscoverableCredential(
                id: id, rpId: rpId, rpName: rpName?.truncatedUTF8(maxBytes: UserEntity.maximumStoredNameBytes),
                user: user, key: key, credProtect: credProtect, credRandoms: credRandoms,
                creationOrder: state.nextCreationOrder))
            state.nextCreationOrder += 1
        }
        return id
    }

    /// `{"id": bytes ≤ 64, "name"?, "displayName"?}`; names are kept to 64 bytes.
    static func parseUser(_ map: RequestMap) throws(CTAPStatus) -> UserEntity {
        let id = try map.requiredBytes("id")
        guard id.count <= UserEntity.maximumIDBytes else { throw .invalidLength }
        let name = try map.text("name")
        let displayName = try map.text("displayName")
        return UserEntity(id: id,
                          name: name?.truncatedUTF8(maxBytes: UserEntity.maximumStoredNameBytes),
                          displayName: displayName?.truncatedUTF8(maxBytes: UserEntity.maximumStoredNameBytes))
    }

    /// pubKeyCredParams: `[{"alg": int, "type": text}, ...]`.
    static func chooseAlgorithm(_ items: [CBOR]) throws(CTAPStatus) -> COSEAlgorithm {
        var chosen: COSEAlgorithm?
        for item in items {
            let parameter = try RequestMap(item)
            let type = try parameter.requiredText("type")
            guard let alg = try parameter.integer("alg") else { throw .missingParameter }
            if chosen == nil, type == "public-key", let algorithm = COSEAlgorithm(rawValue: Int(alg)),
               CredentialKey.supportedAlgorithms.contains(algorithm) {
                chosen = algorithm
            }
        }
        guard let chosen else { throw .unsupportedAlgorithm }
        return chosen
    }
}

/// The makeCredential extensions this authenticator implements; others are ignored.
struct MakeCredentialExtensions {
    var credProtect: CredProtect?
    var hmacSecret = false

    init(_ map: RequestMap?) throws(CTAPStatus) {
        guard let map else { return }
        if let level = try map.unsigned("credProtect") {
            guard level <= UInt8.max, let value = CredProtect(rawValue: UInt8(level)) else { throw .invalidParameter }
            credProtect = value
        }
        hmacSecret = try map.bool("hmac-secret") ?? false
    }

    /// The authenticator-data extension outputs: exactly the requested ones
    /// (libfido2's fido_cred_verify compares them with what it asked for).
    var outputs: CBOR? {
        var map: [CBOR: CBOR] = [:]
        if let credProtect { map["credProtect"] = .unsigned(UInt64(credProtect.rawValue)) }
        if hmacSecret { map["hmac-secret"] = true }
        return map.isEmpty ? nil : .map(map)
    }
}
