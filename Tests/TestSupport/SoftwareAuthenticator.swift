import CBOR
import Crypto
import Foundation
import WebAuthn

/// A P-256 software authenticator and the browser around it: it builds, with
/// the WebAuthn core types, what a browser would post to a relying party, so
/// a verifier (ours or the devserver's) meets real bytes. Each tampering knob
/// produces one forged answer a test needs. End-to-end tests with the real
/// virtual authenticator through libfido2 live in FIDOTests.
public struct SoftwareAuthenticator {
    public let key = P256.Signing.PrivateKey()
    public var credentialId: [UInt8] = WebAuthnFixtures.randomBytes(32)
    public var aaguid: [UInt8]
    public var signCount: UInt32 = 0
    /// The user handle stored with a discoverable credential; `register` sets it.
    public var userHandle: [UInt8]?

    /// An all-zero AAGUID is what authenticators that do not attest report.
    public init(aaguid: [UInt8] = [UInt8](repeating: 0, count: 16)) {
        self.aaguid = aaguid
    }

    public var publicKey: COSEKey { COSEKey(p256: key.publicKey) }

    /// How the attestation statement is made.
    public enum Attestation {
        case none
        case packedSelf
        /// packed with x5c: the certificate (DER) and the key it certifies.
        case packedCertificate([UInt8], P256.Signing.PrivateKey)
    }

    public struct Tampering {
        public var type: CollectedClientData.CeremonyType?
        public var challenge: [UInt8]?
        public var origin: String?
        public var crossOrigin = false
        public var topOrigin: String?
        public var rpId: String?
        public var flags: AuthenticatorData.Flags = [.userPresent, .userVerified]
        public var corruptSignature = false
        public var signCount: UInt32?
        public var userHandle: [UInt8]??

        public init() {}
    }

    // MARK: The browser's side: options in, the response to post out

    /// `navigator.credentials.create()` for creation options.
    public mutating func register(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String,
                                  attestation: Attestation = .none, tampering: Tampering = .init()) -> RegistrationResponseJSON {
        userHandle = options.user.id.bytes
        return registration(challenge: options.challenge.bytes, origin: origin, rpId: options.rp.id ?? "",
                            attestation: attestation, tampering: tampering)
    }

    /// `navigator.credentials.get()` for request options, from a security key (cross-platform).
    public mutating func assert(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String,
                                tampering: Tampering = .init()) -> AuthenticationResponseJSON {
        assertion(challenge: options.challenge.bytes, origin: origin, rpId: options.rpId ?? "",
                  userHandle: userHandle, tampering: tampering, authenticatorAttachment: .crossPlatform)
    }

    // MARK: The authenticator's side

    public func registration(challenge: [UInt8], origin: String, rpId: String,
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
    public mutating func assertion(challenge: [UInt8], origin: String, rpId: String, userHandle: [UInt8]?,
                                   tampering: Tampering = Tampering(),
                                   authenticatorAttachment: AuthenticatorAttachment? = nil) -> AuthenticationResponseJSON {
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
                userHandle: tampering.userHandle ?? userHandle),
            authenticatorAttachment: authenticatorAttachment)
    }

    private func sign(_ message: [UInt8], with key: P256.Signing.PrivateKey, corrupt: Bool) -> [UInt8] {
        // Signing a different message keeps the DER well formed, so only the
        // signature check can notice.
        let signed = corrupt ? message + [0] : message
        return (try? Array(key.signature(for: signed).derRepresentation)) ?? []
    }
}
