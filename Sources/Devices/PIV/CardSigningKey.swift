import Crypto
import FoundationEssentials
import SwiftASN1
import X509

/// A card-held P-256 key in the shape swift-certificates signs with, so a
/// certificate for a card key can be self-signed by the card.
///
/// swift-certificates wants a `Sendable & Hashable` key; the session inside
/// is neither, so it travels in a box compared by identity. It is used only
/// synchronously, inside `PIVCertificateBuilder.selfSigned`, on the caller's thread.
struct CardSigningKey: CustomPrivateKey {
    final class SessionBox: @unchecked Sendable {
        let session: PIVSession
        let slot: PIVSlot
        init(session: PIVSession, slot: PIVSlot) {
            self.session = session
            self.slot = slot
        }
    }

    let box: SessionBox
    let cardPublicKey: P256.Signing.PublicKey

    var publicKey: Certificate.PublicKey { Certificate.PublicKey(cardPublicKey) }
    var defaultSignatureAlgorithm: Certificate.SignatureAlgorithm { .ecdsaWithSHA256 }
    var supportedSignatureAlgorithms: [Certificate.SignatureAlgorithm] { [.ecdsaWithSHA256] }

    func signSynchronously(bytes: some DataProtocol,
                           signatureAlgorithm: Certificate.SignatureAlgorithm) throws -> Certificate.Signature {
        guard signatureAlgorithm == .ecdsaWithSHA256 else {
            throw PIVError.certificate("a card P-256 key signs with ECDSA-SHA256 only")
        }
        let digest = Array(SHA256.hash(data: Array(bytes)))
        let signature = try box.session.signature(slot: box.slot, digest: digest)
        return try Certificate.Signature(signatureAlgorithm: .ecdsaWithSHA256,
                                         signatureBytes: ASN1BitString(bytes: ArraySlice(signature.derRepresentation)))
    }

    static var defaultPEMDiscriminator: String { "PRIVATE KEY" }

    /// A card key cannot leave the card.
    func serialize(into coder: inout DER.Serializer) throws {
        throw PIVError.certificate("a key on a card cannot be exported")
    }

    static func == (lhs: CardSigningKey, rhs: CardSigningKey) -> Bool {
        lhs.box === rhs.box && lhs.cardPublicKey.rawRepresentation == rhs.cardPublicKey.rawRepresentation
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(box))
        hasher.combine(cardPublicKey.rawRepresentation)
    }
}

/// Builds the self-signed certificate that makes a card key visible to PIV
/// middleware (OpenSC lists a key only when its certificate object exists).
public enum PIVCertificateBuilder {
    /// A self-signed certificate for the P-256 key in `slot`, signed on the
    /// card (the PIN must be verified). Valid from an hour ago (clock skew)
    /// for 20 years; key usage: key agreement and digital signature.
    public static func selfSigned(session: PIVSession, slot: PIVSlot, publicKey: PIVPublicKey,
                                  commonName: String, organization: String,
                                  now: Date = Date()) throws(PIVError) -> Certificate {
        let signingKey = try publicKey.signingKey
        let key = CardSigningKey(box: CardSigningKey.SessionBox(session: session, slot: slot), cardPublicKey: signingKey)
        do {
            let name = try DistinguishedName {
                OrganizationName(organization)
                CommonName(commonName)
            }
            return try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: Certificate.PublicKey(signingKey),
                notValidBefore: now.addingTimeInterval(-3600),
                notValidAfter: now.addingTimeInterval(20 * 365 * 24 * 3600),
                issuer: name,
                subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true, keyAgreement: true))
                },
                issuerPrivateKey: Certificate.PrivateKey(key))
        } catch let error as PIVError {
            throw error
        } catch {
            throw .certificate("cannot build the certificate: \(error)")
        }
    }
}
