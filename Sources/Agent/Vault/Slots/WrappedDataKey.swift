import Crypto
import FoundationEssentials

/// The data key sealed for one key slot: AES-256-GCM under the slot's
/// wrapping key, with the slot's identity as associated data.
struct WrappedDataKey: Sendable, Equatable {
    /// 12 bytes.
    var nonce: [UInt8]
    /// The encrypted key (32 bytes) followed by the GCM tag (16 bytes).
    var sealed: [UInt8]

    static let encodedLength = VaultFormat.nonceLength + VaultFormat.dataKeyLength + VaultFormat.tagLength

    static func wrap(_ dataKey: DataKey, with wrappingKey: SymmetricKey, aad: [UInt8]) throws(VaultError) -> WrappedDataKey {
        do {
            let box = try dataKey.withBytes { bytes in
                try AES.GCM.seal(bytes, using: wrappingKey, nonce: AES.GCM.Nonce(), authenticating: aad)
            }
            return WrappedDataKey(nonce: Array(box.nonce), sealed: Array(box.ciphertext) + Array(box.tag))
        } catch let error as VaultError {
            throw error
        } catch {
            throw .notWritable(path: "(key slot)", reason: "could not seal the data key: \(error)")
        }
    }

    /// The data key, or nil when `wrappingKey` is not the one it was sealed with.
    func unwrap(with wrappingKey: SymmetricKey, aad: [UInt8]) -> DataKey? {
        guard nonce.count == VaultFormat.nonceLength,
              sealed.count == VaultFormat.dataKeyLength + VaultFormat.tagLength,
              let box = try? AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce),
                                               ciphertext: sealed.prefix(VaultFormat.dataKeyLength),
                                               tag: sealed.suffix(VaultFormat.tagLength)),
              var plain = try? AES.GCM.open(box, using: wrappingKey, authenticating: aad)
        else { return nil }
        var bytes = Array(plain)
        plain.resetBytes(in: 0..<plain.count)
        return try? DataKey(taking: &bytes)
    }

    func encode(into writer: inout ByteWriter) {
        writer.append(nonce)
        writer.append(sealed)
    }

    static func decode(from reader: inout ByteReader) throws(FormatProblem) -> WrappedDataKey {
        WrappedDataKey(nonce: try reader.take(VaultFormat.nonceLength, "wrapped key nonce"),
                       sealed: try reader.take(VaultFormat.dataKeyLength + VaultFormat.tagLength, "wrapped key"))
    }
}

/// HKDF-SHA-256 with the salt and info a slot records.
struct SlotKeyDerivation: Sendable, Equatable {
    var salt: [UInt8]
    var info: [UInt8]

    static func fresh(info: [UInt8]) -> SlotKeyDerivation {
        SlotKeyDerivation(salt: randomBytes(32), info: info)
    }

    func wrappingKey(from secret: SymmetricKey) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, salt: salt, info: info, outputByteCount: 32)
    }

    func encode(into writer: inout ByteWriter) {
        writer.appendShort(salt)
        writer.appendShort(info)
    }

    static func decode(from reader: inout ByteReader) throws(FormatProblem) -> SlotKeyDerivation {
        let salt = try reader.short("HKDF salt")
        let info = try reader.short("HKDF info")
        guard !info.isEmpty else { throw FormatProblem("the HKDF info is empty") }
        return SlotKeyDerivation(salt: salt, info: info)
    }
}

/// `count` bytes from the system's random number generator.
func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}
