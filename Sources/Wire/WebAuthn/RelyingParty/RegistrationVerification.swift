import CBOR
import Crypto

extension RelyingParty {
    /// Verifies a registration response as WebAuthn L3 §7.1 describes.
    ///
    /// What it cannot know is left to the caller: that the credential id is
    /// not yet registered to any user (step 22), and trust in an attestation
    /// certificate chain (step 21; the result says which kind it was).
    public static func verifyRegistration(_ credential: RegistrationResponseJSON,
                                          expecting expected: RegistrationExpectation)
        throws(WebAuthnError) -> VerifiedRegistration {
        try checkCredential(type: credential.type, id: credential.id, rawId: credential.rawId.bytes)
        let response = credential.response
        let clientDataJSON = response.clientDataJSON.bytes
        try checkClientData(clientDataJSON, type: .create, challenge: expected.challenge,
                            allowedOrigins: expected.allowedOrigins, allowedTopOrigins: expected.allowedTopOrigins)
        let clientDataHash = Array(SHA256.hash(data: clientDataJSON))

        let attestation: AttestationObject
        do { attestation = try AttestationObject(bytes: response.attestationObject.bytes) } catch {
            if case .unsupportedAlgorithm(let alg) = error {
                throw fail("attestationObject", "the credential key uses COSE algorithm \(alg), which cannot be verified")
            }
            throw fail("attestationObject", reasonOf(error))
        }
        if let reported = response.authenticatorData, reported.bytes != attestation.rawAuthenticatorData {
            throw fail("response.authenticatorData", "differs from the attestation object's authData")
        }
        let authData = attestation.authenticatorData
        try checkAuthenticatorData(authData, rpId: expected.rpId,
                                   userVerificationRequired: expected.userVerificationRequired)
        guard let attested = authData.attestedCredentialData else {
            throw fail("authenticatorData.flags.AT", "no attested credential data")
        }
        let algorithm = attested.publicKey.algorithm.rawValue
        guard expected.allowedAlgorithms.contains(algorithm) else {
            throw fail("credentialPublicKey.alg", "\(attested.publicKey.algorithm.name) (\(algorithm)) is not in pubKeyCredParams")
        }
        if let reported = response.publicKeyAlgorithm, reported != algorithm {
            throw fail("response.publicKeyAlgorithm", "\(reported) differs from the credential key's \(algorithm)")
        }
        guard attested.credentialId.count <= AttestedCredentialData.maxCredentialIdLength else {
            throw fail("credentialId", "\(attested.credentialId.count) bytes exceeds 1023")
        }
        guard attested.credentialId == credential.rawId.bytes else {
            throw fail("rawId", "differs from the credential id in the authenticator data")
        }

        guard expected.allowedAttestationFormats.contains(attestation.format) else {
            throw fail("attestationObject.fmt", "\"\(attestation.format)\" is not an accepted attestation format")
        }
        let verdict: (type: AttestationType, certificates: [[UInt8]])
        switch attestation.format {
        case "none":
            guard attestation.statement.mapValue?.isEmpty == true else {
                throw fail("attStmt", "format none must have an empty statement")
            }
            verdict = (.none, [])
        case "packed":
            verdict = try PackedAttestation.verify(statement: attestation.statement,
                                                   authenticatorData: attestation.rawAuthenticatorData,
                                                   clientDataHash: clientDataHash,
                                                   credential: attested)
        default:
            throw fail("attestationObject.fmt", "\"\(attestation.format)\" is not implemented by this verifier")
        }

        return VerifiedRegistration(
            credentialId: attested.credentialId,
            publicKey: attested.publicKey,
            signCount: authData.signCount,
            aaguid: attested.aaguid,
            attestationFormat: attestation.format,
            attestationType: verdict.type,
            attestationCertificates: verdict.certificates,
            flags: authData.flags,
            transports: response.transports,
            residentKey: credential.clientExtensionResults.credProps?.rk,
            authenticatorAttachment: credential.authenticatorAttachment,
            authenticatorExtensions: authData.extensions)
    }
}
