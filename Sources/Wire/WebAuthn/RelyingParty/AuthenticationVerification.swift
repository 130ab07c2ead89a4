import Crypto

extension RelyingParty {
    /// Verifies an authentication response as WebAuthn L3 §7.2 describes,
    /// against the credential record the caller looked up by `rawId`.
    ///
    /// The caller stores the result's `signCount` and `backupState`.
    public static func verifyAuthentication(_ credential: AuthenticationResponseJSON,
                                            expecting expected: AuthenticationExpectation)
        throws(WebAuthnError) -> VerifiedAuthentication {
        let rawId = credential.rawId.bytes
        try checkCredential(type: credential.type, id: credential.id, rawId: rawId)
        guard rawId == expected.credential.id else {
            throw fail("rawId", "is not the stored credential this assertion is checked against")
        }
        if !expected.allowCredentials.isEmpty, !expected.allowCredentials.contains(rawId) {
            throw fail("rawId", "the credential is not in allowCredentials")
        }
        let response = credential.response
        if let userHandle = response.userHandle?.bytes {
            guard !userHandle.isEmpty else { throw fail("response.userHandle", "is present but empty") }
            guard userHandle == expected.credential.userHandle else {
                throw fail("response.userHandle", "does not match the user who owns the credential")
            }
        } else if expected.allowCredentials.isEmpty {
            throw fail("response.userHandle", "is required when the user was not identified beforehand (empty allowCredentials)")
        }

        let clientDataJSON = response.clientDataJSON.bytes
        try checkClientData(clientDataJSON, type: .get, challenge: expected.challenge,
                            allowedOrigins: expected.allowedOrigins, allowedTopOrigins: expected.allowedTopOrigins)

        let rawAuthData = response.authenticatorData.bytes
        let authData: AuthenticatorData
        do { authData = try AuthenticatorData(bytes: rawAuthData) } catch {
            throw fail("response.authenticatorData", reasonOf(error))
        }
        try checkAuthenticatorData(authData, rpId: expected.rpId,
                                   userVerificationRequired: expected.userVerificationRequired)
        if let recorded = expected.credential.backupEligible,
           recorded != authData.flags.contains(.backupEligible) {
            throw fail("authenticatorData.flags.BE", "backup eligibility changed since registration")
        }

        let message = rawAuthData + Array(SHA256.hash(data: clientDataJSON))
        guard expected.credential.publicKey.isValidSignature(response.signature.bytes, for: message) else {
            throw fail("response.signature", "does not verify with the credential's public key")
        }

        let stored = expected.credential.signCount
        let received = authData.signCount
        if stored != 0 || received != 0, received <= stored {
            throw fail("authenticatorData.signCount",
                       "\(received) is not above the stored \(stored); the authenticator may be cloned")
        }

        return VerifiedAuthentication(
            credentialId: rawId,
            signCount: received,
            flags: authData.flags,
            userHandle: response.userHandle?.bytes,
            authenticatorAttachment: credential.authenticatorAttachment,
            authenticatorExtensions: authData.extensions)
    }
}
