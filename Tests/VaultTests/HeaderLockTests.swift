import Foundation
import Testing
import TestSupport
@testable import Vault

/// Slot changes from several writers at once — the agent and `passkey
/// --no-agent vault …` are two processes; here each writer is its own
/// `UnlockedVault`, whose header lock is its own open file, so they contend
/// as processes do. Each change is applied to the header as it is under the
/// lock, so none is lost: without the lock, two rewrites made from the same
/// read drop one of the two slots.
@Suite(.ownThreads) struct HeaderLockTests {
    @Test func concurrentSlotAddsAndRemovesAllLand() throws {
        let card = VaultFormatTests.SoftwareCard()
        let (_, location) = try VaultFormatTests().makeVault(card: card)
        defer { try? FileManager.default.removeItem(atPath: (location.directory as NSString).deletingLastPathComponent) }
        let header = try location.readHeader()
        let dataKey = try card.open(try #require(header.slots.first), vaultId: header.vaultId)
        let ids: [UInt8] = Array(2...9)
        let writers = ids.map { _ in UnlockedVault(location: location, header: header, dataKey: dataKey) }
        let slots = try ids.map { id in
            try PIVCard.makeSlot(for: card.facts, target: EnrolmentTarget(dataKey: dataKey, vaultId: header.vaultId, slotId: id))
        }

        for round in 0..<10 {
            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: ids.count) { index in
                do { try writers[index].add(slots[index]) } catch { failures.append("add \(ids[index]): \(error)") }
            }
            #expect(failures.all.isEmpty, "round \(round): \(failures.all)")
            #expect(try location.readHeader().slots.map(\.id).sorted() == [1] + ids, "round \(round): a slot added at the same time was lost")

            DispatchQueue.concurrentPerform(iterations: ids.count) { index in
                do { _ = try writers[index].removeSlot(ids[index]) } catch { failures.append("remove \(ids[index]): \(error)") }
            }
            #expect(failures.all.isEmpty, "round \(round): \(failures.all)")
            #expect(try location.readHeader().slots.map(\.id) == [1], "round \(round): a removed slot came back")
        }
    }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func append(_ item: String) { lock.withLock { items.append(item) } }
        var all: [String] { lock.withLock { items } }
    }
}
