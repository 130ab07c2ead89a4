import Crypto
import FoundationEssentials
import SwiftASN1
import X509

/// Builds `packed` attestation certificates for tests, with knobs for each
/// requirement of WebAuthn L3 §8.2.1 a certificate can break.
struct AttestationCertificateFactory {
    var organizationalUnit = "Authenticator Attestation"
    var country = "DE"
    var certificateAuthority = false
    var includeBasicConstraints = true
    var aaguid: [UInt8]? = Array(repeating: 0x42, count: 16)
    var aaguidCritical = false

    static let aaguidOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]

    /// The DER certificate and the key it certifies.
    func make() throws -> ([UInt8], P256.Signing.PrivateKey) {
        let issuerKey = P256.Signing.PrivateKey()
        let attestationKey = P256.Signing.PrivateKey()
        let issuer = try DistinguishedName { CommonName("Test Attestation Root") }
        let country = self.country
        let unit = organizationalUnit
        let subject = try DistinguishedName {
            CountryName(country)
            OrganizationName("Test Vendor")
            OrganizationalUnitName(unit)
            CommonName("Test Authenticator Attestation")
        }
        var extensions = Certificate.Extensions()
        if includeBasicConstraints {
            try extensions.append(Certificate.Extension(
                certificateAuthority ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : .notCertificateAuthority,
                critical: true))
        }
        if let aaguid {
            try extensions.append(Certificate.Extension(
                oid: Self.aaguidOID, critical: aaguidCritical, value: ArraySlice([0x04, UInt8(aaguid.count)] + aaguid)))
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(attestationKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400, issuer: issuer, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(issuerKey))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return (serializer.serializedBytes, attestationKey)
    }
}
