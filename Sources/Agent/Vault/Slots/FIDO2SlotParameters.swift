import Crypto
import FIDO
import Hexadecimal

/// A `fido2` key slot: the data key wrapped under HKDF-SHA-256 of a FIDO2
/// credential's hmac-secret output for a stored random salt — as
/// systemd-cryptenroll does. The credential is not discoverable: its id is
/// kept here, and only the key that made it can answer for it.
public struct FIDO2SlotParameters: Sendable, Equatable {
    /// The secret was made with user verification (built-in UV or the key's
    /// PIN), so opening needs it again: hmac-secret answers differently with
    /// and without UV.
    public var userVerification: Bool
    /// The credProtect level the credential was made with (0: none asked).
    public var credProtect: UInt8
    /// The AAGUID of the key at enrolment (16 bytes): which model it was.
    public var aaguid: [UInt8]
    public var relyingParty: String
    public var credentialId: [UInt8]
    /// The 32-byte salt sent with every assertion.
    var hmacSalt: [UInt8]
    var derivation: SlotKeyDerivation
    /// The key's product name at enrolment: a hint for messages.
    public var deviceLabel: String

    /// "YubiKey 5 NFC, user verification" or "software authenticator, touch only".
    public var deviceDescription: String {
        let name = deviceLabel.isEmpty ? "security key \(Hexadecimal.encode(aaguid))" : deviceLabel
        return "\(name), \(userVerification ? "user verification (PIN or fingerprint)" : "touch only")"
    }

    /// Whether opening this slot on `info`'s key needs the key's PIN: user
    /// verification was used, and the key has no built-in UV to give it.
    public func needsPIN(on info: AuthenticatorInfo) -> Bool {
        userVerification && !info.hasBuiltInUV
    }

    /// The assertion that yields the slot's secret.
    func assertionRequest() -> GetAssertionRequest {
        GetAssertionRequest(rpId: relyingParty, clientDataHash: Array(SHA256.hash(data: randomBytes(32))),
                            allowCredentialIds: [credentialId], userPresence: true,
                            userVerification: userVerification, hmacSalts: [hmacSalt])
    }

    // MARK: Encoding (docs/VAULT.md, "fido2 slot body")

    func encode(into writer: inout ByteWriter) {
        writer.append(userVerification ? 0x01 as UInt8 : 0x00)
        writer.append(credProtect)
        writer.append(aaguid)
        writer.appendShort(Array(relyingParty.utf8))
        writer.appendLong(credentialId)
        writer.append(hmacSalt)
        derivation.encode(into: &writer)
        writer.appendShort(Array(deviceLabel.utf8))
    }

    static func decode(from reader: inout ByteReader) throws(FormatProblem) -> FIDO2SlotParameters {
        let flags = try reader.byte("fido2 flags")
        guard flags & ~0x01 == 0 else { throw FormatProblem("unknown fido2 flags \(flags)") }
        let credProtect = try reader.byte("credProtect level")
        guard credProtect <= 3 else { throw FormatProblem("credProtect level \(credProtect) does not exist") }
        let aaguid = try reader.take(16, "AAGUID")
        guard let relyingParty = String(validating: try reader.short("relying party id"), as: UTF8.self),
              !relyingParty.isEmpty else { throw FormatProblem("the relying party id is empty or not UTF-8") }
        let credentialId = try reader.long("credential id")
        guard !credentialId.isEmpty else { throw FormatProblem("the credential id is empty") }
        let salt = try reader.take(32, "hmac-secret salt")
        let derivation = try SlotKeyDerivation.decode(from: &reader)
        guard let label = String(validating: try reader.short("device label"), as: UTF8.self) else {
            throw FormatProblem("the device label is not UTF-8")
        }
        return FIDO2SlotParameters(userVerification: flags & 0x01 != 0, credProtect: credProtect, aaguid: aaguid,
                                   relyingParty: relyingParty, credentialId: credentialId, hmacSalt: salt,
                                   derivation: derivation, deviceLabel: label)
    }
}
