/// The constants of the vault's on-disk format. docs/VAULT.md is the
/// specification; this file and the record types beside it implement it.
public enum VaultFormat {
    /// The format this build writes, and the newest it reads.
    public static let version: UInt16 = 1

    /// The first 8 bytes of the header file.
    static let headerMagic: [UInt8] = Array("PKAVAULT".utf8)
    /// The first 8 bytes of every entry file.
    static let entryMagic: [UInt8] = Array("PKAENTRY".utf8)

    static let vaultIdLength = 16
    static let entryIdLength = 32
    static let dataKeyLength = 32
    static let nonceLength = 12
    static let tagLength = 16
    static let p256PointLength = 65

    /// The most key slots a header holds.
    public static let maxSlots = 16
    /// The largest entry plaintext (name and payload).
    public static let maxEntryBytes = 256 * 1024
    /// The largest header file read.
    static let maxHeaderBytes = 64 * 1024

    /// HKDF info of the key that turns entry names into entry ids.
    static let entryIdInfo: [UInt8] = Array("passkey-agent vault v1 entry id".utf8)
    /// HKDF info recorded in new piv slots.
    static let pivInfo: [UInt8] = Array("passkey-agent vault v1 piv-p256".utf8)
    /// HKDF info recorded in new fido2 slots.
    static let fido2Info: [UInt8] = Array("passkey-agent vault v1 fido2-hmac-secret".utf8)
    /// The relying party id of the vault's FIDO2 credentials.
    static let fido2RelyingParty = "passkey-agent.vault"

    /// AAD of an entry: "PKAENTRY" ‖ version ‖ vault id ‖ entry id.
    static func entryAAD(version: UInt16, vaultId: [UInt8], entryId: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(entryMagic)
        writer.append(version)
        writer.append(vaultId)
        writer.append(entryId)
        return writer.bytes
    }

    /// AAD of a wrapped data key: "PKAVAULT" ‖ version ‖ vault id ‖ slot id ‖ slot type.
    static func slotAAD(version: UInt16, vaultId: [UInt8], slotId: UInt8, type: UInt8) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(headerMagic)
        writer.append(version)
        writer.append(vaultId)
        writer.append(slotId)
        writer.append(type)
        return writer.bytes
    }
}
