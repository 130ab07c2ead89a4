import SwiftASN1
import X509

/// The requirements WebAuthn L3 §8.2.1 places on a `packed` attestation
/// certificate, and the AAGUID extension check.
enum AttestationCertificateRequirements {
    /// id-fido-gen-ce-aaguid: the authenticator model's AAGUID, as an OCTET STRING of 16 bytes.
    static let aaguidExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]

    static func fail(_ why: String) -> WebAuthnError { RelyingParty.fail("attStmt.x5c[0]", why) }

    static func check(_ certificate: Certificate, aaguid: [UInt8]) throws(WebAuthnError) {
        guard certificate.version == .v3 else { throw fail("must be an X.509 version 3 certificate") }

        let subject = certificate.subject
        func attribute(_ type: ASN1ObjectIdentifier) -> String? {
            for rdn in subject {
                for attribute in rdn where attribute.type == type {
                    if let text = String(attribute.value) { return text }
                }
            }
            return nil
        }
        let oids = ASN1ObjectIdentifier.RDNAttributeType.self
        guard let country = attribute(oids.countryName), country.utf8.count == 2 else {
            throw fail("subject C must be a two-letter country code")
        }
        guard let organization = attribute(oids.organizationName), !organization.isEmpty else {
            throw fail("subject O (the authenticator vendor) is missing")
        }
        guard attribute(oids.organizationalUnitName) == "Authenticator Attestation" else {
            throw fail("subject OU must be \"Authenticator Attestation\"")
        }
        guard let commonName = attribute(oids.commonName), !commonName.isEmpty else {
            throw fail("subject CN is missing")
        }

        let constraints: BasicConstraints?
        do { constraints = try certificate.extensions.basicConstraints } catch {
            throw fail("basic constraints extension is malformed")
        }
        switch constraints {
        case .notCertificateAuthority: break
        case .isCertificateAuthority: throw fail("basic constraints must say CA=false")
        case nil: throw fail("basic constraints extension (CA=false) is missing")
        }

        if let aaguidExtension = certificate.extensions[oid: aaguidExtension] {
            guard !aaguidExtension.critical else { throw fail("the AAGUID extension must not be critical") }
            let value: ASN1OctetString
            do { value = try ASN1OctetString(derEncoded: aaguidExtension.value) } catch {
                throw fail("the AAGUID extension is not an OCTET STRING")
            }
            guard Array(value.bytes) == aaguid else {
                throw fail("the AAGUID extension differs from the authenticator data's aaguid")
            }
        }
    }
}
