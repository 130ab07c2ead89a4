import CBOR
import Crypto
import Foundation
import WebAuthn

/// A software P-256 authenticator and the browser around it, at the seam a
/// user never crosses: it turns the devserver's options into the JSON a
/// browser would post, built with the WebAuthn core types. Tampering knobs
/// produce the forged answers the devserver must refuse. (End-to-end tests
/// with the real virtual authenticator through libfido2 live elsewhere.)
struct TestAuthenticator {
    let key = P256.Signing.PrivateKey()
    var credentialId: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }
    var signCount: UInt32 = 0
    /// The user handle stored with a discoverable credential.
    var userHandle: [UInt8]?

    struct Tampering {
        var type: CollectedClientData.CeremonyType?
        var challenge: [UInt8]?
        var origin: String?
        var rpId: String?
        var flags: AuthenticatorData.Flags = [.userPresent, .userVerified]
        var corruptSignature = false
        var signCount: UInt32?
        var userHandle: [UInt8]??
        var packed = false
    }

    /// `navigator.credentials.create()` for the devserver's `/register/begin` data.
    mutating func register(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String,
                           tampering: Tampering = .init()) -> RegistrationResponseJSON {
        userHandle = options.user.id.bytes
        let clientData = CollectedClientData(type: tampering.type ?? .create, challenge: tampering.challenge ?? options.challenge.bytes,
                                             origin: tampering.origin ?? origin).json
        let rpId = tampering.rpId ?? options.rp.id ?? ""
        let authData = AuthenticatorData(
            rpIdHash: Array(SHA256.hash(data: Array(rpId.utf8))), flags: tampering.flags,
            signCount: tampering.signCount ?? signCount,
            attestedCredentialData: AttestedCredentialData(aaguid: Array(repeating: 0, count: 16),
                                                           credentialId: credentialId, publicKey: COSEKey(p256: key.publicKey)))
            .encoded()
        var statement = CBOR.map([:])
        if tampering.packed {
            let signature = sign(authData + Array(SHA256.hash(data: clientData)), corrupt: tampering.corruptSignature)
            statement = ["alg": .int(-7), "sig": .bytes(signature)]
        }
        let attestationObject = CBOR.map(["fmt": .text(tampering.packed ? "packed" : "none"), "attStmt": statement,
                                          "authData": .bytes(authData)]).encoded()
        return RegistrationResponseJSON(
            rawId: credentialId,
            response: AuthenticatorAttestationResponseJSON(clientDataJSON: clientData, attestationObject: attestationObject,
                                                           authenticatorData: authData, transports: [.usb],
                                                           publicKeyAlgorithm: -7),
            authenticatorAttachment: .crossPlatform,
            clientExtensionResults: .init(credProps: .init(rk: true)))
    }

    /// `navigator.credentials.get()` for the devserver's `/signin/begin` data.
    mutating func assert(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String,
                         tampering: Tampering = .init()) -> AuthenticationResponseJSON {
        signCount += 1
        let clientData = CollectedClientData(type: tampering.type ?? .get, challenge: tampering.challenge ?? options.challenge.bytes,
                                             origin: tampering.origin ?? origin).json
        let rpId = tampering.rpId ?? options.rpId ?? ""
        let authData = AuthenticatorData(rpIdHash: Array(SHA256.hash(data: Array(rpId.utf8))), flags: tampering.flags,
                                         signCount: tampering.signCount ?? signCount).encoded()
        let signature = sign(authData + Array(SHA256.hash(data: clientData)), corrupt: tampering.corruptSignature)
        return AuthenticationResponseJSON(
            rawId: credentialId,
            response: AuthenticatorAssertionResponseJSON(clientDataJSON: clientData, authenticatorData: authData,
                                                         signature: signature, userHandle: tampering.userHandle ?? userHandle),
            authenticatorAttachment: .crossPlatform)
    }

    private func sign(_ message: [UInt8], corrupt: Bool) -> [UInt8] {
        let signed = corrupt ? message + [0] : message
        return (try? Array(key.signature(for: signed).derRepresentation)) ?? []
    }
}
