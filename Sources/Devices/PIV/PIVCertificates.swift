import Crypto
import FoundationEssentials
import ISO7816
import SwiftASN1
import X509

/// Certificates in PIV certificate objects: `70 L <DER> 71 01 <info> FE 00`,
/// where info 00 means uncompressed (SP 800-73-4 Part 1 Table 10).
public enum PIVCertificates {
    /// Wraps a DER certificate as the value of a certificate object.
    public static func objectValue(der: [UInt8]) -> [UInt8] {
        BERTLV(tag: 0x70, value: der).encoded + BERTLV(tag: 0x71, value: [0x00]).encoded + BERTLV(tag: 0xFE, value: []).encoded
    }

    /// The DER certificate inside a certificate object's value.
    static func der(fromObject value: [UInt8], slot: PIVSlot) throws(PIVError) -> [UInt8] {
        guard let items = try? BERTLV.parseAll(value), let certificate = items.first(0x70) else {
            throw .certificate("the certificate object of slot \(slot) is malformed")
        }
        if let info = items.first(0x71)?.value.first, info & 0x01 != 0 {
            throw .certificate("the certificate in slot \(slot) is compressed, which is not supported")
        }
        return certificate.value
    }

    static func publicKey(of certificate: Certificate, slot: PIVSlot) throws(PIVError) -> PIVPublicKey {
        guard let key = P256.Signing.PublicKey(certificate.publicKey) else {
            throw .unsupportedKey(slot: slot, algorithm: "non-P-256")
        }
        return try PIVPublicKey(p256Point: Array(key.x963Representation))
    }
}

extension PIVSession {
    /// The X.509 certificate stored for `slot`, or nil when the object is absent.
    public func certificate(slot: PIVSlot) throws(PIVError) -> Certificate? {
        guard let value = try readObject(slot.certificateObject) else { return nil }
        let der = try PIVCertificates.der(fromObject: value, slot: slot)
        do {
            return try Certificate(derEncoded: der)
        } catch {
            throw .certificate("the certificate in slot \(slot) cannot be parsed: \(error)")
        }
    }

    /// Stores `certificate` in `slot`'s certificate object (needs management-key authentication).
    public func writeCertificate(_ certificate: Certificate, slot: PIVSlot) throws(PIVError) {
        var serializer = DER.Serializer()
        do {
            try serializer.serialize(certificate)
        } catch {
            throw .certificate("cannot encode the certificate: \(error)")
        }
        try writeObject(slot.certificateObject, value: PIVCertificates.objectValue(der: serializer.serializedBytes))
    }
}
