import Foundation
import Testing
import TestSupport
@testable import Vault

/// Decrypted entries kept in memory while the vault is unlocked
/// (EntryCache): read once, served from memory while the file is unchanged,
/// read afresh after any change by anyone, and zeroed when the vault locks.
@Suite(.ownThreads) struct EntryCacheTests {
    let format = VaultFormatTests()

    /// What the fast path keeps beside an entry, here its payload itself; it
    /// says how often it was made and whether it was zeroed.
    struct Copy: KeptBesideEntry {
        final class Witness: @unchecked Sendable {
            var made = 0
            var zeroed = 0
        }
        var bytes: [UInt8]
        let witness: Witness

        mutating func zero() {
            bytes = []
            witness.zeroed += 1
        }
    }

    @Test func aValueMadeFromAnEntryIsMadeOnceKeptBesideItAndZeroedWithIt() throws {
        let (vault, _) = try format.makeVault()
        let witness = Copy.Witness()
        func derived() throws -> [UInt8]? {
            try vault.cachedDerived("token:a") { payload -> Copy? in
                witness.made += 1
                return Copy(bytes: payload, witness: witness)
            }?.bytes
        }
        try vault.write("token:a", [1, 2, 3])
        #expect(try derived() == nil, "nothing is made from an entry not in memory")
        _ = try vault.read("token:a")
        #expect(try derived() == [1, 2, 3])
        #expect(try derived() == [1, 2, 3])
        #expect(witness.made == 1, "made once per version of the entry")

        try vault.write("token:a", [4, 5, 6])
        #expect(witness.zeroed == 1, "a write zeroes what was made from the old payload")
        _ = try vault.read("token:a")
        #expect(try derived() == [4, 5, 6])
        #expect(witness.made == 2)

        vault.retire()
        #expect(witness.zeroed == 2, "locking zeroes it with the payload")
        #expect(throws: VaultError.closed) { try derived() }
    }

    @Test func anEntryReadOnceIsServedFromMemoryUntilItsFileChanges() throws {
        let card = VaultFormatTests.SoftwareCard()
        let (vault, location) = try format.makeVault(card: card)
        try vault.write("token:work", Array("first".utf8))
        #expect(try cachedPayload("token:work", in: vault) == nil, "a write keeps nothing: the next read reads the file")
        #expect(try vault.read("token:work") == Array("first".utf8))
        #expect(vault.entriesInMemory == 1)
        #expect(try cachedPayload("token:work", in: vault) == Array("first".utf8))

        // Another process with the same key (`passkey --no-agent token put`) replaces the entry.
        let header = try location.readHeader()
        let other = UnlockedVault(location: location, header: header,
                                  dataKey: try card.open(try #require(header.slots.first), vaultId: header.vaultId))
        try other.write("token:work", Array("second".utf8))
        #expect(try cachedPayload("token:work", in: vault) == nil, "the file changed: what was kept is not used")
        #expect(try vault.read("token:work") == Array("second".utf8))

        // So does a change that keeps the inode: a touch moves the file's times.
        let path = try #require(try location.entryIds().first.map { location.entryPath(id: $0) })
        #expect(try cachedPayload("token:work", in: vault) != nil)
        #expect(utimensat(AT_FDCWD, path, nil, 0) == 0)
        #expect(try cachedPayload("token:work", in: vault) == nil)

        // And a write or removal through this vault forgets the entry first.
        _ = try vault.read("token:work")
        try vault.write("token:work", Array("third".utf8))
        #expect(try vault.read("token:work") == Array("third".utf8))
        try vault.remove("token:work")
        #expect(throws: VaultError.entryNotFound("token:work")) { try vault.read("token:work") }
        #expect(vault.entriesInMemory == 0)
    }

    /// The kept payload itself, as the fast path would see it.
    func cachedPayload(_ name: String, in vault: UnlockedVault) throws -> [UInt8]? {
        try vault.cachedDerived(name) { Copy(bytes: $0, witness: Copy.Witness()) }?.bytes
    }

    @Test func lockingZeroesWhatIsKeptAndKeepsNothingMore() throws {
        let (vault, _) = try format.makeVault()
        try vault.write("token:a", [1, 2, 3])
        try vault.write("token:b", [4, 5, 6])
        _ = try vault.read("token:a")
        _ = try vault.read("token:b")
        #expect(vault.entriesInMemory == 2)
        #expect(vault.beginUse())
        vault.retire()
        #expect(vault.entriesInMemory == 0, "locking empties the cache at once, even while a use runs")
        #expect(throws: VaultError.closed) { try cachedPayload("token:a", in: vault) }
        // The running use may still read (a refresh saving its rotated token), but nothing is kept.
        #expect(try vault.read("token:a") == [1, 2, 3])
        #expect(vault.entriesInMemory == 0)
        vault.endUse()
        #expect(throws: VaultError.closed) { try vault.read("token:a") }
    }
}
