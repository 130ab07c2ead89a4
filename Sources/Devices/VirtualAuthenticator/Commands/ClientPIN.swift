import CBOR

/// authenticatorClientPIN (0x06, CTAP 2.1 §6.5.5), PIN/UV auth protocols 1 and 2.
///
/// Request keys: 1 pinUvAuthProtocol · 2 subCommand · 3 keyAgreement ·
/// 4 pinUvAuthParam · 5 newPinEnc · 6 pinHashEnc · 9 permissions · 0x0A rpId.
extension AuthenticatorEngine {
    /// §6.5.5.7: three wrong PINs in a row block PIN entry until power-off.
    static let mismatchesBeforePowerCycle = 3

    func clientPIN(_ request: RequestMap, _ interaction: SimulatedUser) throws(CTAPStatus) -> CBOR? {
        let subCommand = try request.requiredUnsigned(2)
        // A protocol number, if given, must be one we speak, whatever the subcommand.
        let version = try PinUvAuthProtocol.read(request, key: 1)
        func requireVersion() throws(CTAPStatus) -> PinUvAuthProtocol {
            guard let version else { throw .missingParameter }
            return version
        }
        switch subCommand {
        case 0x01:
            return [3: .unsigned(UInt64(state.pinRetries)),
                    4: .bool(consecutivePINMismatches >= Self.mismatchesBeforePowerCycle)]
        case 0x02:
            let version = try requireVersion()
            return [1: PinUvAuthProtocol.coseKey(keyAgreement[version].publicKey)]
        case 0x03:
            try setPIN(request, try requireVersion())
            return nil
        case 0x04:
            try changePIN(request, try requireVersion())
            return nil
        case 0x05:
            return try getPinToken(request, try requireVersion())
        case 0x06:
            return try getPinUvAuthTokenUsingUV(request, try requireVersion(), interaction)
        case 0x07:
            guard configuration.builtInUV else { throw .invalidSubcommand }
            return [5: .unsigned(UInt64(state.uvRetries))]
        case 0x09:
            return try getPinUvAuthTokenUsingPIN(request, try requireVersion())
        default:
            throw .invalidSubcommand
        }
    }

    // MARK: Subcommands

    private func setPIN(_ request: RequestMap, _ version: PinUvAuthProtocol) throws(CTAPStatus) {
        guard let platformKey = request.raw(3) else { throw .missingParameter }
        let pinUvAuthParam = try request.requiredBytes(4)
        let newPinEnc = try request.requiredBytes(5)
        guard state.pin == nil else { throw .pinAuthInvalid }
        let shared = try version.sharedSecret(authenticatorKey: keyAgreement[version], platformKey: platformKey)
        guard shared.verify(message: newPinEnc, signature: pinUvAuthParam) else { throw .pinAuthInvalid }
        let record = try PINRecord(paddedPIN: try shared.decrypt(newPinEnc))
        try commit { state in
            state.pin = record
            state.pinRetries = AuthenticatorState.maximumPINRetries
        }
    }

    private func changePIN(_ request: RequestMap, _ version: PinUvAuthProtocol) throws(CTAPStatus) {
        guard let platformKey = request.raw(3) else { throw .missingParameter }
        let pinUvAuthParam = try request.requiredBytes(4)
        let newPinEnc = try request.requiredBytes(5)
        let pinHashEnc = try request.requiredBytes(6)
        guard state.pin != nil else { throw .pinNotSet }
        guard state.pinRetries > 0 else { throw .pinBlocked }
        let shared = try version.sharedSecret(authenticatorKey: keyAgreement[version], platformKey: platformKey)
        guard shared.verify(message: newPinEnc + pinHashEnc, signature: pinUvAuthParam) else { throw .pinAuthInvalid }
        try verifyPIN(pinHashEnc: pinHashEnc, shared: shared)
        let record = try PINRecord(paddedPIN: try shared.decrypt(newPinEnc))
        try commit { $0.pin = record }
        // Tokens obtained with the old PIN stop working.
        token.revoke()
    }

    /// 0x05: the CTAP 2.0 way; the token gets the default permissions mc and ga.
    private func getPinToken(_ request: RequestMap, _ version: PinUvAuthProtocol) throws(CTAPStatus) -> CBOR {
        guard let platformKey = request.raw(3) else { throw .missingParameter }
        let pinHashEnc = try request.requiredBytes(6)
        if request.contains(9) || request.contains(0x0A) { throw .invalidParameter }
        guard state.pin != nil else { throw .pinNotSet }
        guard state.pinRetries > 0 else { throw .pinBlocked }
        let shared = try version.sharedSecret(authenticatorKey: keyAgreement[version], platformKey: platformKey)
        try verifyPIN(pinHashEnc: pinHashEnc, shared: shared)
        token.issue(permissions: [.makeCredential, .getAssertion], rpId: nil, userPresent: false)
        return [2: .bytes(try shared.encrypt(token.tokenBytes))]
    }

    /// 0x09: a token with explicit permissions (and RP binding) after a PIN.
    private func getPinUvAuthTokenUsingPIN(_ request: RequestMap, _ version: PinUvAuthProtocol) throws(CTAPStatus) -> CBOR {
        guard let platformKey = request.raw(3) else { throw .missingParameter }
        let pinHashEnc = try request.requiredBytes(6)
        let (permissions, rpId) = try Self.requestedPermissions(request)
        guard state.pin != nil else { throw .pinNotSet }
        guard state.pinRetries > 0 else { throw .pinBlocked }
        let shared = try version.sharedSecret(authenticatorKey: keyAgreement[version], platformKey: platformKey)
        try verifyPIN(pinHashEnc: pinHashEnc, shared: shared)
        token.issue(permissions: permissions, rpId: rpId, userPresent: false)
        return [2: .bytes(try shared.encrypt(token.tokenBytes))]
    }

    /// 0x06: a token after built-in UV, answered by the verification policy.
    /// The fingerprint touch also counts as user presence for the next command.
    private func getPinUvAuthTokenUsingUV(_ request: RequestMap, _ version: PinUvAuthProtocol,
                                          _ interaction: SimulatedUser) throws(CTAPStatus) -> CBOR {
        guard configuration.builtInUV else { throw .invalidSubcommand }
        guard let platformKey = request.raw(3) else { throw .missingParameter }
        let (permissions, rpId) = try Self.requestedPermissions(request)
        let shared = try version.sharedSecret(authenticatorKey: keyAgreement[version], platformKey: platformKey)
        try performBuiltInUV(interaction, mismatch: .uvInvalid)
        token.issue(permissions: permissions, rpId: rpId, userPresent: true)
        return [2: .bytes(try shared.encrypt(token.tokenBytes))]
    }

    // MARK: Shared checks

    /// Keys 9 (permissions) and 0x0A (rpId) of subcommands 0x06 and 0x09.
    private static func requestedPermissions(_ request: RequestMap) throws(CTAPStatus) -> (PinUvAuthPermissions, String?) {
        let bits = try request.requiredUnsigned(9)
        let rpId = try request.text(0x0A)
        guard bits != 0, bits <= UInt8.max else { throw .invalidParameter }
        let permissions = PinUvAuthPermissions(rawValue: UInt8(bits))
        guard PinUvAuthPermissions.supported.isSuperset(of: permissions) else { throw .unauthorizedPermission }
        if !permissions.isDisjoint(with: .needRPID) && rpId == nil { throw .missingParameter }
        return (permissions, rpId)
    }

    /// Checks pinHashEnc against the stored PIN (§6.5.5.7.1 steps 4–7): the
    /// retry counter is decremented (and persisted) before comparing, so
    /// pulling the plug mid-check cannot give a free guess.
    func verifyPIN(pinHashEnc: [UInt8], shared: PinUvAuthSharedSecret) throws(CTAPStatus) {
        guard let record = state.pin else { throw .pinNotSet }
        guard state.pinRetries > 0 else { throw .pinBlocked }
        guard consecutivePINMismatches < Self.mismatchesBeforePowerCycle else { throw .pinAuthBlocked }
        try commit { $0.pinRetries -= 1 }
        if let pinHash = try? shared.decrypt(pinHashEnc), pinHash.count == 16, record.matches(pinHash: pinHash) {
            consecutivePINMismatches = 0
            // A correct PIN also restores the built-in UV retries (§6.5.5.7.1).
            try commit { state in
                state.pinRetries = AuthenticatorState.maximumPINRetries
                state.uvRetries = AuthenticatorState.maximumUVRetries
            }
            return
        }
        // A wrong PIN: the platform must agree on a new key before trying again.
        keyAgreement.regenerate()
        consecutivePINMismatches += 1
        if state.pinRetries == 0 { throw .pinBlocked }
        if consecutivePINMismatches >= Self.mismatchesBeforePowerCycle { throw .pinAuthBlocked }
        throw .pinInvalid
    }
}
