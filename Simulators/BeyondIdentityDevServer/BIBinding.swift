import Base64
import DevServerBase
import FoundationEssentials
import Hummingbird
import WebAuthn

/// POST BI/…/identities/<id>/credential-binding-jobs/<job>:begin and
/// …:complete (the job's token is the credential): creation options for a
/// discoverable passkey of realm r1, then the registration, verified as
/// strictly as the passwordless side's (`RelyingParty.verifyRegistration`).
/// A job binds once; each begin allows one complete attempt.
extension BIServer {
    /// ES256 and EdDSA, as the contract offers; both are verifiable here.
    static let bindingAlgorithms = [COSEAlgorithm.es256.rawValue, COSEAlgorithm.edDSA.rawValue]

    struct BindBody: Decodable {
        var token: String?
        var credential: RegistrationResponseJSON?
    }

    struct BeginAnswer: Encodable {
        let options: PublicKeyCredentialCreationOptionsJSON
        let origin: String
    }

    struct CompleteAnswer: Encodable {
        struct Passkey: Encodable {
            struct Identity: Encodable { let id: String; let display_name: String; let username: String }
            let id: String
            let identity: Identity
        }
        let passkey: Passkey
        let post_binding_redirect_uri: String?
    }

    func bindingStep(_ request: Request) async -> Response {
        do { return try await bindingStepChecked(request) } catch { return error.response }
    }

    private func bindingStepChecked(_ request: Request) async throws(BIError) -> Response {
        let path = request.uri.path
        let prefix = Self.realmPath + "/identities/"
        guard path.hasPrefix(prefix) else { throw .notFound("This path") }
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1] == "credential-binding-jobs", let colon = parts[2].lastIndex(of: ":") else {
            throw .notFound("This path")
        }
        let identityId = String(parts[0]), jobId = String(parts[2][..<colon]), step = parts[2][parts[2].index(after: colon)...]
        guard identityId.isIdentifier(upTo: 64), jobId.isIdentifier(upTo: 64), step == "begin" || step == "complete" else {
            throw .notFound("This binding step")
        }
        let body = try await BIRequestBody.decode(BindBody.self, from: request)
        guard let token = body.token, token.utf8.count <= 256 else { throw .invalidRequest("token (the binding link's) is required.") }
        let job = try await liveJob(jobId, identityId: identityId, token: token)
        guard let identity = await store.identity(id: identityId) else { throw .notFound("This identity") }
        if step == "begin" { return await begin(jobId, identity: identity) }
        guard let credential = body.credential else { throw .invalidRequest("credential (a RegistrationResponseJSON) is required.") }
        return try await complete(jobId, job: job, identity: identity, credential: credential)
    }

    private func begin(_ jobId: String, identity: BIIdentity) async -> Response {
        let challenge = AppKeys.randomBytes(32)
        await store.beginJob(jobId, challenge: challenge)
        let existing = await store.passkeyIds(ofIdentity: identity.id)
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: PublicKeyCredentialRpEntity(id: configuration.rpId, name: Self.applicationName),
            user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(Array(identity.id.utf8)), name: identity.username,
                                                    displayName: identity.displayName),
            challenge: Base64URLBytes(challenge),
            pubKeyCredParams: Self.bindingAlgorithms.map { PublicKeyCredentialParameters(alg: $0) },
            timeout: WebAuthnCeremony.timeout,
            excludeCredentials: existing.map { PublicKeyCredentialDescriptorJSON(id: Base64URLBytes($0)) },
            authenticatorSelection: AuthenticatorSelectionCriteria(residentKey: .required, requireResidentKey: true,
                                                                   userVerification: .preferred),
            attestation: AttestationConveyancePreference.none)
        return OAuthResponse.json(BeginAnswer(options: options, origin: configuration.origin))
    }

    private func complete(_ jobId: String, job: BIBindingJob, identity: BIIdentity,
                          credential: RegistrationResponseJSON) async throws(BIError) -> Response {
        guard let challenge = await store.takeChallenge(jobId) else {
            throw .invalidRequest("Call :begin first: each begin allows one :complete.")
        }
        let expectation = RegistrationExpectation(challenge: challenge, allowedOrigins: [configuration.origin], rpId: configuration.rpId,
                                                  userVerificationRequired: false, allowedAlgorithms: Self.bindingAlgorithms)
        let verified: VerifiedRegistration
        do { verified = try RelyingParty.verifyRegistration(credential, expecting: expectation) } catch {
            throw BIError(code: "invalid_registration", description: WebAuthnCeremony.reason(error))
        }
        let passkey = BIPasskey(credentialId: verified.credentialId, identityId: identity.id, publicKey: verified.publicKey,
                                signCount: verified.signCount, backupEligible: verified.backupEligible)
        guard await store.completeJob(jobId, passkey: passkey) else {
            throw BIError(code: "job_used", description: "This job has bound a passkey already, or the credential id is taken.")
        }
        return OAuthResponse.json(CompleteAnswer(
            passkey: .init(id: Base64URL.encode(verified.credentialId),
                           identity: .init(id: identity.id, display_name: identity.displayName, username: identity.username)),
            post_binding_redirect_uri: job.postBindingRedirectURI))
    }
}
