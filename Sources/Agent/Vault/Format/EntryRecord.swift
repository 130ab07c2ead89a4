import Crypto
import FoundationEssentials

/// One entry file (docs/VAULT.md, "Entry files"): the entry's name and
/// payload sealed with AES-256-GCM under the data key, a fresh nonce each
/// write, and AAD binding the format version, the vault id and the entry id.
enum EntryRecord {
    /// magic (8) + version (2) + entry id (32) + nonce (12) + length (4) … + tag (16).
    static let overhead = 8 + 2 + VaultFormat.entryIdLength + VaultFormat.nonceLength + 4 + VaultFormat.tagLength

    /// The entry id of `name`: HMAC-SHA-256 under a key derived from the
    /// data key, so file names say nothing about what the vault holds.
    static func entryId(of name: String, dataKey: SymmetricKey, vaultId: [UInt8]) -> [UInt8] {
        let nameKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: dataKey, salt: vaultId,
                                             info: VaultFormat.entryIdInfo, outputByteCount: 32)
        return Array(HMAC<SHA256>.authenticationCode(for: Array(name.utf8), using: nameKey))
    }

    static func validate(name: String) throws(VaultError) {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty else { throw .invalidEntryName("it is empty") }
        guard bytes.count <= 1024 else { throw .invalidEntryName("it is longer than 1024 bytes") }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidEntryName("it contains control characters")
        }
    }

    static func seal(name: String, payload: [UInt8], dataKey: SymmetricKey, vaultId: [UInt8]) throws(VaultError) -> (id: [UInt8], bytes: [UInt8]) {
        try validate(name: name)
        let nameBytes = Array(name.utf8)
        guard 2 + nameBytes.count + payload.count <= VaultFormat.maxEntryBytes else {
            throw .entryTooLarge(name: name, limit: VaultFormat.maxEntryBytes)
        }
        var plain = ByteWriter()
        plain.appendLong(nameBytes)
        plain.append(payload)
        var plaintext = plain.bytes
        defer { DataKey.zero(&plaintext) }
        let id = entryId(of: name, dataKey: dataKey, vaultId: vaultId)
        let aad = VaultFormat.entryAAD(version: VaultFormat.version, vaultId: vaultId, entryId: id)
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.seal(plaintext, using: dataKey, nonce: AES.GCM.Nonce(), authenticating: aad)
        } catch {
            throw .notWritable(path: "(entry \(name))", reason: "could not encrypt it: \(error)")
        }
        var writer = ByteWriter()
        writer.append(VaultFormat.entryMagic)
        writer.append(VaultFormat.version)
        writer.append(id)
        writer.append(Array(box.nonce))
        writer.append(UInt32(box.ciphertext.count))
        writer.append(Array(box.ciphertext))
        writer.append(Array(box.tag))
        return (id, writer.bytes)
    }

    /// Decrypts an entry file. `expectedId` (the id its file name says) must
    /// match the id inside; any mismatch or failed tag is `.damagedEntry`.
    static func open(_ bytes: [UInt8], path: String, dataKey: SymmetricKey, vaultId: [UInt8],
                     expectedId: [UInt8]) throws(VaultError) -> (name: String, payload: [UInt8]) {
        var reader = ByteReader(bytes)
        let fields: (version: UInt16, id: [UInt8], nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8])
        do {
            guard try reader.take(VaultFormat.entryMagic.count, "magic") == VaultFormat.entryMagic else {
                throw FormatProblem("it does not start with PKAENTRY")
            }
            let version = try reader.uint16("format version")
            if version > VaultFormat.version { throw VaultError.unsupportedVersion(path: path, version: Int(version)) }
            guard version >= 1 else { throw FormatProblem("format version 0 does not exist") }
            let id = try reader.take(VaultFormat.entryIdLength, "entry id")
            let nonce = try reader.take(VaultFormat.nonceLength, "nonce")
            let length = Int(try reader.uint32("ciphertext length"))
            let ciphertext = try reader.take(length, "ciphertext")
            let tag = try reader.take(VaultFormat.tagLength, "tag")
            try reader.expectEnd("tag")
            fields = (version, id, nonce, ciphertext, tag)
        } catch let error as VaultError {
            throw error
        } catch {
            throw .damagedEntry(path: path, reason: "\(error)")
        }
        guard fields.id == expectedId else {
            throw .damagedEntry(path: path, reason: "its entry id does not match its file name")
        }
        let aad = VaultFormat.entryAAD(version: fields.version, vaultId: vaultId, entryId: fields.id)
        var plaintext: [UInt8]
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: fields.nonce), ciphertext: fields.ciphertext,
                                            tag: fields.tag)
            var opened = try AES.GCM.open(box, using: dataKey, authenticating: aad)
            plaintext = Array(opened)
            opened.resetBytes(in: 0..<opened.count)
        } catch {
            throw .damagedEntry(path: path, reason: "it fails authentication: altered, truncated, or from another vault")
        }
        defer { DataKey.zero(&plaintext) }
        var inner = ByteReader(plaintext)
        guard let nameBytes = try? inner.long("name"), let name = String(validating: nameBytes, as: UTF8.self),
              entryId(of: name, dataKey: dataKey, vaultId: vaultId) == fields.id else {
            throw .damagedEntry(path: path, reason: "its name does not match its entry id")
        }
        return (name, inner.rest())
    }
}
