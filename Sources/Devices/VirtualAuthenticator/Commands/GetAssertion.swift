import CBOR
import WebAuthn

/// authenticatorGetAssertion (0x02, CTAP 2.1 §6.2), in the order of §6.2.2.
extension AuthenticatorEngine {
    func getAssertion(_ request: RequestMap, _ interaction: SimulatedUser) throws(CTAPStatus) -> CBOR {
        let rpId = try request.requiredText(1)
        let clientDataHash = try request.requiredBytes(2)
        var allowList: [CredentialDescriptor] = []
        if let items = try request.array(3) { allowList = try CredentialDescriptor.parseList(items) }
        let extensions = try request.map(4)
        let options = RequestOptions(try request.map(5))
        let pinUvAuthParam = try request.bytes(6)
        let protocolNumber = try request.unsigned(7)

        // Steps 1–2.
        try answerTouchProbe(pinUvAuthParam, interaction)
        let version = try pinUvAuthProtocol(for: pinUvAuthParam, number: protocolNumber)

        // Step 5: options. "rk" has no meaning here.
        if try options.flag("rk") != nil { throw .unsupportedOption }
        let userPresenceRequested = try options.flag("up") ?? true
        var userVerification = try options.flag("uv") ?? false
        if pinUvAuthParam != nil { userVerification = false }
        if userVerification && !configuration.builtInUV { throw .invalidOption }

        // hmac-secret is checked and decrypted before anyone is asked to touch.
        var hmacSecret: HmacSecretRequest?
        if let input = extensions?.raw("hmac-secret") {
            // The secret is released only to a present user.
            guard userPresenceRequested else { throw .unsupportedOption }
            hmacSecret = try HmacSecretRequest(input, keyAgreement: &keyAgreement)
        }

        // Step 6: user verification.
        let (userVerified, userPresent) = try verifyUser(
            pinUvAuthParam, version, builtInUVRequested: userVerification, clientDataHash: clientDataHash,
            permission: .getAssertion, rpId: rpId, interaction)

        // Step 7: locate credentials; credProtect decides what is visible.
        let rpIdHash = sha256(rpId)
        let selected: ResolvedCredential
        var others: [[UInt8]] = []
        if !allowList.isEmpty {
            var found: ResolvedCredential?
            for descriptor in allowList {
                if let credential = resolveCredential(id: descriptor.id, rpId: rpId, rpIdHash: rpIdHash),
                   credential.credProtect.permits(userVerified: userVerified, namedInAllowList: true) {
                    found = credential
                    break
                }
            }
            guard let found else { throw .noCredentials }
            selected = found
        } else {
            let candidates = state.discoverable(rpId: rpId).filter {
                $0.credProtect.permits(userVerified: userVerified, namedInAllowList: false)
            }
            guard let first = candidates.first else { throw .noCredentials }
            selected = ResolvedCredential(discoverable: first)
            others = candidates.dropFirst().map(\.id)
        }

        // Step 9: user presence, unless the platform asked for a silent assertion.
        if userPresenceRequested {
            try collectPresenceIfNeeded(alreadyPresent: userPresent, interaction)
            if pinUvAuthParam != nil { token.consumeAfterUse() }
        }

        var flags: AuthenticatorData.Flags = []
        if userPresenceRequested { flags.insert(.userPresent) }
        if userVerified { flags.insert(.userVerified) }
        let total = others.count + 1
        let assertion = AssertionContext(rpIdHash: rpIdHash, clientDataHash: clientDataHash, flags: flags,
                                         hmacSecret: hmacSecret,
                                         // §6.2.2 step 12: names only to a verified user choosing among several.
                                         includeUserNames: userVerified && total > 1)
        let response = try assertionResponse(selected, assertion, numberOfCredentials: total > 1 ? total : nil)
        if !others.isEmpty {
            pendingAssertions = PendingAssertions(context: assertion, remaining: others)
        }
        return response
    }

    /// Signs one assertion: authenticator data (with a fresh counter value and
    /// the hmac-secret output if asked) ‖ clientDataHash.
    func assertionResponse(_ credential: ResolvedCredential, _ assertion: AssertionContext,
                           numberOfCredentials: Int?) throws(CTAPStatus) -> CBOR {
        let signCount = try nextSignatureCount()
        var extensionOutputs: CBOR?
        // Only credentials made with hmac-secret answer it; never an unrequested output.
        if let hmacSecret = assertion.hmacSecret, let randoms = credential.credRandoms {
            let userVerified = assertion.flags.contains(.userVerified)
            let output = try hmacSecret.output(credRandom: randoms.select(userVerified: userVerified))
            extensionOutputs = ["hmac-secret": .bytes(output)]
        }
        let authenticatorData = AuthenticatorData(rpIdHash: assertion.rpIdHash, flags: assertion.flags,
                                                  signCount: signCount, extensions: extensionOutputs).encoded()
        let signature = try credential.key.sign(authenticatorData + assertion.clientDataHash)
        var response: [CBOR: CBOR] = [
            1: ["id": .bytes(credential.id), "type": "public-key"],
            2: .bytes(authenticatorData),
            3: .bytes(signature),
        ]
        if let user = credential.user { response[4] = user.cbor(includingNames: assertion.includeUserNames) }
        if let numberOfCredentials { response[5] = .unsigned(UInt64(numberOfCredentials)) }
        return .map(response)
    }
}

/// What every assertion of one getAssertion (and its getNextAssertions) shares.
struct AssertionContext {
    let rpIdHash: [UInt8]
    let clientDataHash: [UInt8]
    let flags: AuthenticatorData.Flags
    let hmacSecret: HmacSecretRequest?
    let includeUserNames: Bool
}
