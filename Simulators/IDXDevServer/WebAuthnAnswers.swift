import Crypto
import DevServerBase
import FoundationEssentials
import WebAuthn

/// The security key's answers, verified as strictly as the passwordless
/// side verifies (WebAuthn L3 §7.1/§7.2 in `RelyingParty`): type,
/// challenge (single-use), origin, rpIdHash, UP, algorithm, attestation
/// `none`/`packed`, signature and counter. IDX posts no credential id:
/// a registration's comes from its attestation object; an assertion's
/// credential is the user's enrolled key whose public key its signature
/// verifies with — none means the key is not enrolled for this user.
extension IDXServer {
    func answerAttestation(_ credentials: IDXWire.Body.Credentials, _ transaction: IDXTransactionRecord, userId: String,
                           challenge: [UInt8]) async throws(IDXRefusal) -> IDXTransactionRecord {
        let attestation = try binaryField(credentials.attestation, "attestation", transaction)
        let clientData = try binaryField(credentials.clientData, "clientData", transaction)
        let spent = try await spendChallenge(transaction, .webauthnEnroll(userId: userId, challenge: Self.newChallenge()))
        func refuse(_ why: String) -> IDXRefusal {
            .topLevel("The security key could not be enrolled: \(why)", key: "devserver.webauthn.invalid_registration", spent)
        }
        let object: AttestationObject
        do { object = try AttestationObject(bytes: attestation) } catch { throw refuse("attestation: \(WebAuthnCeremony.reason(error))") }
        guard let attested = object.authenticatorData.attestedCredentialData else {
            throw refuse("attestation: its authenticator data has no attested credential")
        }
        let response = RegistrationResponseJSON(
            rawId: attested.credentialId,
            response: AuthenticatorAttestationResponseJSON(clientDataJSON: clientData, attestationObject: attestation))
        let expectation = RegistrationExpectation(challenge: challenge, allowedOrigins: allowedOrigins, rpId: rpId,
                                                  userVerificationRequired: configuration.userVerificationRequired, allowedAlgorithms: Self.algorithms)
        let verified: VerifiedRegistration
        do { verified = try RelyingParty.verifyRegistration(response, expecting: expectation) } catch {
            throw refuse(WebAuthnCeremony.reason(error))
        }
        switch await store.enroll(userId: userId, credentialId: verified.credentialId, publicKey: verified.publicKey,
                                  signCount: verified.signCount, aaguid: verified.aaguid, backupEligible: verified.backupEligible) {
        case .credentialTaken: throw refuse("this credential is already enrolled (excludeCredentials lists a user's own)")
        case .tooMany: throw refuse("the user has \(IDXUser.maxEnrollments) security keys already")
        case .enrolled: return try await succeed(spent, userId: userId)
        }
    }

    func answerAssertion(_ credentials: IDXWire.Body.Credentials, _ transaction: IDXTransactionRecord, userId: String,
                         challenge: [UInt8]) async throws(IDXRefusal) -> IDXTransactionRecord {
        let authenticatorData = try binaryField(credentials.authenticatorData, "authenticatorData", transaction)
        let clientData = try binaryField(credentials.clientData, "clientData", transaction)
        let signature = try binaryField(credentials.signatureData, "signatureData", transaction)
        let spent = try await spendChallenge(transaction, .webauthnChallenge(userId: userId, challenge: Self.newChallenge()))
        guard let user = await store.user(id: userId) else { throw .sessionExpired }
        let signed = authenticatorData + Array(SHA256.hash(data: clientData))
        guard let enrollment = user.enrollments.first(where: { $0.publicKey.isValidSignature(signature, for: signed) }) else {
            throw .topLevel("The assertion was not made by a security key enrolled for \(user.username): "
                            + "its signature verifies with none of their \(user.enrollments.count) enrolled keys.",
                            key: "devserver.webauthn.not_enrolled", spent, status: .unauthorized)
        }
        let response = AuthenticationResponseJSON(
            rawId: enrollment.credentialId,
            response: AuthenticatorAssertionResponseJSON(clientDataJSON: clientData, authenticatorData: authenticatorData,
                                                         signature: signature))
        let expectation = AuthenticationExpectation(
            challenge: challenge, allowedOrigins: allowedOrigins, rpId: rpId, userVerificationRequired: configuration.userVerificationRequired,
            allowCredentials: user.enrollments.map(\.credentialId),
            credential: CredentialRecord(id: enrollment.credentialId, publicKey: enrollment.publicKey, signCount: enrollment.signCount,
                                         userHandle: Array(user.id.utf8), backupEligible: enrollment.backupEligible))
        let verified: VerifiedAuthentication
        do { verified = try RelyingParty.verifyAuthentication(response, expecting: expectation) } catch {
            throw .topLevel("The security key's assertion was refused: \(WebAuthnCeremony.reason(error))",
                            key: "devserver.webauthn.invalid_assertion", spent, status: .unauthorized)
        }
        await store.recordSignCount(userId: userId, credentialId: verified.credentialId, verified.signCount)
        return try await succeed(spent, userId: userId)
    }
}
