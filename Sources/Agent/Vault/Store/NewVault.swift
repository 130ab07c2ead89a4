/// A vault being created: a fresh vault id and data key, and the number of
/// its first slot. Nothing is written until `create(with:)`.
public struct NewVault: Sendable {
    public let location: VaultLocation
    private let header: VaultHeader
    public let target: EnrolmentTarget

    /// Refuses when a vault exists at `location` already.
    public static func prepare(at location: VaultLocation) throws(VaultError) -> NewVault {
        guard !location.exists else { throw .alreadyExists(path: location.directory) }
        let header = VaultHeader.new()
        return NewVault(location: location, header: header,
                        target: EnrolmentTarget(dataKey: DataKey.random(), vaultId: header.vaultId, slotId: 1))
    }

    private init(location: VaultLocation, header: VaultHeader, target: EnrolmentTarget) {
        self.location = location
        self.header = header
        self.target = target
    }

    /// Writes the header with its first slot (never over an existing vault)
    /// and returns the vault, open.
    public func create(with slot: KeySlot) throws(VaultError) -> UnlockedVault {
        var header = self.header
        header.slots = [slot]
        try location.createHeader(header)
        return UnlockedVault(location: location, vaultId: header.vaultId, dataKey: target.dataKey)
    }
}

extension UnlockedVault {
    /// The vault opened with the data key a slot's device unwrapped.
    public convenience init(location: VaultLocation, header: VaultHeader, dataKey: DataKey) {
        self.init(location: location, vaultId: header.vaultId, dataKey: dataKey)
        location.removeStaleTemporaryFiles()
    }
}
