/// The vault's header file: format version, vault id, and the key slots
/// that each hold the data key wrapped for one device (docs/VAULT.md, "The header").
public struct VaultHeader: Sendable, Equatable {
    public var version: UInt16
    /// 16 random bytes, bound into every entry's and every slot's AAD.
    public var vaultId: [UInt8]
    public var slots: [KeySlot]

    /// A header for a new vault, with no slots yet.
    static func new() -> VaultHeader {
        VaultHeader(version: VaultFormat.version, vaultId: randomBytes(VaultFormat.vaultIdLength), slots: [])
    }

    public func slots(of kind: KeySlot.Kind) -> [KeySlot] { slots.filter { $0.kind == kind } }

    /// The lowest slot number not in use.
    var nextSlotId: UInt8? {
        let used = Set(slots.map(\.id))
        return (1...UInt8.max).first { !used.contains($0) }
    }

    /// "slot 1 (piv: …), slot 2 (fido2: …)".
    public var slotList: String {
        slots.isEmpty ? "none" : slots.map(\.label).joined(separator: ", ")
    }

    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.append(VaultFormat.headerMagic)
        writer.append(version)
        writer.append(vaultId)
        writer.append(UInt8(slots.count))
        for slot in slots { slot.encode(into: &writer) }
        return writer.bytes
    }

    init(version: UInt16, vaultId: [UInt8], slots: [KeySlot]) {
        self.version = version
        self.vaultId = vaultId
        self.slots = slots
    }

    init(decoding bytes: [UInt8], path: String) throws(VaultError) {
        var reader = ByteReader(bytes)
        do {
            guard try reader.take(VaultFormat.headerMagic.count, "magic") == VaultFormat.headerMagic else {
                throw FormatProblem("it does not start with PKAVAULT: not a passkey-agent vault header")
            }
            let version = try reader.uint16("format version")
            if version > VaultFormat.version { throw VaultError.unsupportedVersion(path: path, version: Int(version)) }
            guard version >= 1 else { throw FormatProblem("format version 0 does not exist") }
            let vaultId = try reader.take(VaultFormat.vaultIdLength, "vault id")
            let count = Int(try reader.byte("slot count"))
            guard (1...VaultFormat.maxSlots).contains(count) else {
                throw FormatProblem("\(count) key slots; a vault has 1 to \(VaultFormat.maxSlots)")
            }
            var slots: [KeySlot] = []
            for _ in 0..<count {
                let slot = try KeySlot.decode(from: &reader)
                guard !slots.contains(where: { $0.id == slot.id }) else { throw FormatProblem("slot \(slot.id) appears twice") }
                slots.append(slot)
            }
            try reader.expectEnd("last key slot")
            self.init(version: version, vaultId: vaultId, slots: slots)
        } catch let error as VaultError {
            throw error
        } catch {
            throw .malformedHeader(path: path, reason: "\(error)")
        }
    }
}
