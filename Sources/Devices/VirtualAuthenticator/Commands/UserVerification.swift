/// The user checks makeCredential and getAssertion share (CTAP 2.1 §6.1.2 and
/// §6.2.2, steps 1, 2 and the UV step).
extension AuthenticatorEngine {
    /// Step 1: an empty pinUvAuthParam is a platform's "which key did you touch?"
    /// probe (libfido2 `fido_dev_get_touch_begin`). Wait for a touch, then answer
    /// PIN_NOT_SET or PIN_INVALID; a refused or unanswered touch is
    /// OPERATION_DENIED, as the step says.
    func answerTouchProbe(_ pinUvAuthParam: [UInt8]?, _ interaction: SimulatedUser) throws(CTAPStatus) {
        guard let pinUvAuthParam, pinUvAuthParam.isEmpty else { return }
        switch interaction.collectPresence() {
        case .approved: throw state.pin == nil ? .pinNotSet : .pinInvalid
        case .cancelled: throw .keepaliveCancel
        case .denied, .timedOut: throw .operationDenied
        }
    }

    /// Step 2: with a pinUvAuthParam, the protocol must be named and be one we speak.
    func pinUvAuthProtocol(for pinUvAuthParam: [UInt8]?, number: UInt64?) throws(CTAPStatus) -> PinUvAuthProtocol? {
        guard pinUvAuthParam != nil else { return nil }
        guard let number else { throw .missingParameter }
        guard number <= UInt8.max, let version = PinUvAuthProtocol(rawValue: UInt8(number)) else {
            throw .invalidParameter
        }
        return version
    }

    /// Verifies pinUvAuthParam = authenticate(pinUvAuthToken, clientDataHash) and
    /// the token's permission and RP binding.
    func verifyPinUvAuthParam(_ param: [UInt8], _ version: PinUvAuthProtocol, clientDataHash: [UInt8],
                              permission: PinUvAuthPermissions, rpId: String) throws(CTAPStatus) {
        // No PIN and no built-in UV: no token can exist (CTAP 2.0 behaviour, kept by 2.1 keys).
        guard isProtectedByUserVerification else { throw .pinNotSet }
        guard token.verify(message: clientDataHash, param: param, protocol: version) else { throw .pinAuthInvalid }
        try token.authorize(permission, rpId: rpId)
    }

    /// The UV step: a pinUvAuthParam proves a verified user (and carries the
    /// touch its token was issued with, if any); otherwise the `uv` option asks
    /// for built-in UV, whose fingerprint read is also a touch. Returns whether
    /// the user is now verified and present.
    func verifyUser(_ pinUvAuthParam: [UInt8]?, _ version: PinUvAuthProtocol?, builtInUVRequested: Bool,
                    clientDataHash: [UInt8], permission: PinUvAuthPermissions, rpId: String,
                    _ interaction: SimulatedUser) throws(CTAPStatus) -> (verified: Bool, present: Bool) {
        if let pinUvAuthParam, let version {
            try verifyPinUvAuthParam(pinUvAuthParam, version, clientDataHash: clientDataHash,
                                     permission: permission, rpId: rpId)
            return (true, token.takeUserPresent())
        }
        if builtInUVRequested {
            try performBuiltInUV(interaction)
            return (true, true)
        }
        return (false, false)
    }

    /// Built-in user verification (the simulated fingerprint). A failed match
    /// costs one UV retry and answers `mismatch` (OPERATION_DENIED for a
    /// request's `uv` option, UV_INVALID when a token is asked for); at zero
    /// retries UV is blocked until a correct PIN or a reset restores them.
    func performBuiltInUV(_ interaction: SimulatedUser, mismatch: CTAPStatus = .operationDenied) throws(CTAPStatus) {
        guard state.uvRetries > 0 else { throw .uvBlocked }
        switch interaction.performBuiltInVerification() {
        case .approved:
            try restoreUVRetries()
        case .denied:
            try commit { $0.uvRetries -= 1 }
            throw state.uvRetries == 0 ? .uvBlocked : mismatch
        case .timedOut:
            throw .userActionTimeout
        case .cancelled:
            throw .keepaliveCancel
        }
    }

    func restoreUVRetries() throws(CTAPStatus) {
        if state.uvRetries != AuthenticatorState.maximumUVRetries {
            try commit { $0.uvRetries = AuthenticatorState.maximumUVRetries }
        }
    }

    /// Asks for a touch unless one was already given in this request.
    func collectPresenceIfNeeded(alreadyPresent: Bool, _ interaction: SimulatedUser) throws(CTAPStatus) {
        if alreadyPresent { return }
        try interaction.collectPresence().requireApproved()
    }
}
