import CBOR
import Crypto
import FoundationEssentials
@testable import WebAuthn

/// A P-256 software authenticator plus the client around it: it builds what
/// a browser would post to a relying party, so the verifier meets real bytes.
/// Each knob exists to produce one tampering a test needs.
struct SoftwareAuthenticator {
    let key = P256.Signing.PrivateKey()
    var credentialId: [UInt8] = Array((0..<32).map { _ in UInt8.random(in: 0...255) })
    var aaguid: [UInt8] = Array(repeating: 0x42, count: 16)
    var signCount: UInt32 = 0

    var publicKey: COSEKey { COSEKey(p256: key.publicKey) }

    /// How the attestation statement is made.
    enum Attestation {
        case none
        case packedSelf
        /// packed with x5c: the certificate (DER) and the key it certifies.
        case packedCertificate([UInt8], P256.Signing.PrivateKey)
    }

    struct Tampering {
        var type: CollectedClientData.CeremonyType?
        var challenge: [UInt8]?
        var origin: String?
        var crossOrigin = false
        var topOrigin: String?
        var rpId: String?
        var flags: AuthenticatorData.Flags = [.userPresent, .userVerified]
        var corruptSignature = false
        var signCount: UInt32?
        var userHandle: [UInt8]??
    }

    func registration(challenge: [UInt8], origin: String, rpId: String,
                      attestation: Attestation = .none, tampering: Tampering = Tampering(),
                      transports: [AuthenticatorTransport] = [.usb], residentKey: Bool? = true)
        -> RegistrationResponseJSON {
        let clientData = CollectedClientData(type: tampering.type ?? .create, challenge: tampering.challenge ?? challenge,
                                             origin: tampering.origin ?? origin, crossOrigin: tampering.crossOrigin,
                                             topOrigin: tampering.topOrigin).json
        let authData = AuthenticatorData(
            rpIdHash: Array(SHA256.hash(data: Array((tampering.rpId ?? rpId).utf8))),
            flags: tampering.flags, signCount: tampering.signCount ?? signCount,
            attestedCredentialData: AttestedCredentialData(aaguid: aaguid, credentialId: credentialId, publicKey: publicKey))
            .encoded()
        let signed = authData + Array(SHA256.hash(data: clientData))
        let statement: CBOR
        let format: String
        switch attestation {
        case .none:
            format = "none"
            statement = .map([:])
        case .packedSelf:
            format = "packed"
            statement = ["alg": .int(-7), "sig": .bytes(sign(signed, with: key, corrupt: tampering.corruptSignature))]
        case .packedCertificate(let certificate, let certificateKey):
            format = "packed"
            statement = ["alg": .int(-7),
                         "sig": .bytes(sign(signed, with: certificateKey, corrupt: tampering.corruptSignature)),
                         "x5c": [.bytes(certificate)]]
        }
        let attestationObject = CBOR.map(["fmt": .text(format), "attStmt": statement, "authData": .bytes(authData)]).encoded()
        return RegistrationResponseJSON(
            rawId: credentialId,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: clientData, attestationObject: attestationObject, authenticatorData: authData,
                transports: transports, publicKeyAlgorithm: -7),
            authenticatorAttachment: .crossPlatform,
            clientExtensionResults: .init(credProps: residentKey.map { .init(rk: $0) }))
    }

    /// An assertion; the counter advances as a real authenticator's would.
    mutating func assertion(challenge: [UInt8], origin: String, rpId: String, userHandle: [UInt8]?,
                            tampering: Tampering = Tampering()) -> AuthenticationResponseJSON {
        signCount += 1
        let clientData = CollectedClientData(type: tampering.type ?? .get, challenge: tampering.challenge ?? challenge,
                                             origin: tampering.origin ?? origin, crossOrigin: tampering.crossOrigin,
                                             topOrigin: tampering.topOrigin).json
        let authData = AuthenticatorData(
            rpIdHash: Array(SHA256.hash(data: Array((tampering.rpId ?? rpId).utf8))),
            flags: tampering.flags, signCount: tampering.signCount ?? signCount).encoded()
        let signature = sign(authData + Array(SHA256.hash(data: clientData)), with: key, corrupt: tampering.corruptSignature)
        return AuthenticationResponseJSON(
            rawId: credentialId,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: clientData, authenticatorData: authData, signature: signature,
                userHandle: tampering.userHandle ?? userHandle))
    }

    private func sign(_ message: [UInt8], with key: P256.Signing.PrivateKey, corrupt: Bool) -> [UInt8] {
        // Signing a different message keeps the DER well formed, so only the
        // signature check can notice.
        let signed = corrupt ? message + [0] : message
        return (try? Array(key.signature(for: signed).derRepresentation)) ?? []
    }
}

func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }
