import Crypto
import FIDO
import Foundation
import Testing
import TestSupport
import VirtualAuthenticator
@testable import Vault

/// The vault's format and key slots in-process: round trips, every kind of
/// damage, the AAD bindings, locking and wiping, and `fido2` slots on the
/// software authenticator through libfido2.
@Suite(.ownThreads) struct VaultFormatTests {
    /// A software stand-in for a card's 9D key: the vault only ever sees its
    /// public half; "the card" redoes the ECDH with the private half.
    struct SoftwareCard {
        let key = P256.KeyAgreement.PrivateKey()
        var facts: PIVCard.EnrolmentFacts {
            PIVCard.EnrolmentFacts(readerName: "Test Reader 00 00", publicKey: key.publicKey, serialNumber: 12_345_678,
                                   chuidGUID: Array(repeating: 0xAB, count: 16))
        }

        func open(_ slot: KeySlot, vaultId: [UInt8]) throws -> DataKey {
            guard case .piv(let piv) = slot.protector else { throw TestFailure("not a piv slot") }
            let ephemeral = try P256.KeyAgreement.PublicKey(x963Representation: piv.ephemeralPublicKey)
            let shared = try key.sharedSecretFromKeyAgreement(with: ephemeral).withUnsafeBytes { SymmetricKey(data: $0) }
            return try slot.unwrap(with: piv.derivation.wrappingKey(from: shared), vaultId: vaultId)
        }
    }

    func temporaryLocation() throws -> VaultLocation {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vault-\(UUID().uuidString)").path
        return VaultLocation(directory: directory + "/vault")
    }

    /// A new vault on disk with one software-card slot, open.
    func makeVault(card: SoftwareCard = SoftwareCard()) throws -> (UnlockedVault, VaultLocation) {
        let location = try temporaryLocation()
        let new = try NewVault.prepare(at: location)
        let slot = try PIVCard.makeSlot(for: card.facts, target: new.target)
        return (try new.create(with: slot), location)
    }

    @Test func theHeaderRoundTripsAndThePIVSlotOpensWithTheCardOnly() throws {
        let card = SoftwareCard()
        let (vault, location) = try makeVault(card: card)
        let header = try location.readHeader()
        #expect(header.version == 1)
        #expect(header.vaultId.count == 16)
        #expect(try VaultHeader(decoding: header.encoded(), path: "x") == header)
        let slot = try #require(header.slots.first)
        #expect(slot.id == 1)
        guard case .piv(let piv) = slot.protector else { Issue.record("not piv"); return }
        #expect(piv.serialNumber == 12_345_678)
        #expect(piv.cardDescription.contains("serial 12345678"))
        #expect(piv.cardDescription.contains("Test Reader 00 00"))

        let opened = try card.open(slot, vaultId: header.vaultId)
        try vault.write("probe", Array("value".utf8))
        let reopened = UnlockedVault(location: location, header: header, dataKey: opened)
        #expect(try reopened.read("probe") == Array("value".utf8))

        #expect(throws: VaultError.self) { try SoftwareCard().open(slot, vaultId: header.vaultId) }
        // The slot is bound to its vault: another vault id does not open it.
        #expect(throws: VaultError.self) { try card.open(slot, vaultId: Array(repeating: 0, count: 16)) }
    }

    @Test func aDamagedHeaderIsAClearErrorNeverACrash() throws {
        let (_, location) = try makeVault()
        let bytes = try #require(FileManager.default.contents(atPath: location.headerPath)).map { $0 }
        for cut in [0, 4, 9, 26, 27, 40, bytes.count - 1] {
            #expect(throws: VaultError.self) { try VaultHeader(decoding: Array(bytes.prefix(cut)), path: "h") }
        }
        #expect(throws: VaultError.self) { try VaultHeader(decoding: bytes + [0], path: "h") }
        var newer = bytes
        newer[9] = 2
        #expect(throws: VaultError.unsupportedVersion(path: "h", version: 2)) { try VaultHeader(decoding: newer, path: "h") }
        var noSlots = bytes
        noSlots[26] = 0
        #expect(throws: VaultError.self) { try VaultHeader(decoding: noSlots, path: "h") }
        var wrongMagic = bytes
        wrongMagic[0] = 0
        let error = #expect(throws: VaultError.self) { try VaultHeader(decoding: wrongMagic, path: "h") }
        #expect(error?.description.contains("PKAVAULT") == true)
        // Every single-byte truncation and bit flip of a slot is caught or harmless.
        for index in 27..<bytes.count {
            var flipped = bytes
            flipped[index] ^= 0x80
            _ = try? VaultHeader(decoding: flipped, path: "h")
        }
    }

    @Test func entriesAreSealedNamedByKeyedHashAndFailAlone() throws {
        let (vault, location) = try makeVault()
        try vault.write("token:work", Array("first".utf8))
        let workName = try #require(try FileManager.default.contentsOfDirectory(atPath: location.entriesDirectory).first)
        try vault.write("token:home", Array("second".utf8))
        try vault.write("token:work", Array("third".utf8))
        #expect(try vault.read("token:work") == Array("third".utf8))
        #expect(try location.entryCount() == 2)
        // File names say nothing about the entries, contents neither.
        let names = try FileManager.default.contentsOfDirectory(atPath: location.entriesDirectory)
        #expect(names.allSatisfy { $0.count == 64 && !$0.contains("work") })
        for name in names {
            let data = try #require(FileManager.default.contents(atPath: location.entriesDirectory + "/" + name))
            #expect(data.range(of: Data("third".utf8)) == nil && data.range(of: Data("token:".utf8)) == nil)
            let attributes = try FileManager.default.attributesOfItem(atPath: location.entriesDirectory + "/" + name)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }
        let directoryMode = try FileManager.default.attributesOfItem(atPath: location.directory)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)

        // Damage one: it fails alone, naming its file.
        let workFile = location.entriesDirectory + "/" + workName
        var bytes = try #require(FileManager.default.contents(atPath: workFile))
        bytes[bytes.count - 1] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: workFile))
        let damaged = #expect(throws: VaultError.self) { try vault.read("token:work") }
        #expect(damaged?.description.contains(workFile) == true)
        #expect(try vault.read("token:home") == Array("second".utf8))
        let listing = try vault.entries(withPrefix: "token:")
        #expect(listing.count == 2)
        #expect(listing.filter { if case .damaged = $0 { true } else { false } }.count == 1)

        #expect(throws: VaultError.entryNotFound("token:none")) { try vault.read("token:none") }
        #expect(throws: VaultError.self) { try vault.write("", []) }
        #expect(throws: VaultError.self) { try vault.write("a\u{7}b", []) }
    }

    @Test func anEntryFromAnotherVaultDoesNotOpen() throws {
        let (first, firstLocation) = try makeVault()
        let (second, secondLocation) = try makeVault()
        try first.write("token:work", Array("from the first".utf8))
        try second.write("token:work", Array("from the second".utf8))
        // Same name, different vaults: different file names, and a copied file fails.
        let firstNames = try FileManager.default.contentsOfDirectory(atPath: firstLocation.entriesDirectory)
        let secondNames = try FileManager.default.contentsOfDirectory(atPath: secondLocation.entriesDirectory)
        #expect(Set(firstNames).isDisjoint(with: secondNames))
        let secondFile = secondLocation.entriesDirectory + "/" + secondNames[0]
        try FileManager.default.removeItem(atPath: secondFile)
        try FileManager.default.copyItem(atPath: firstLocation.entriesDirectory + "/" + firstNames[0], toPath: secondFile)
        #expect(throws: VaultError.self) { try second.read("token:work") }
    }

    @Test func lockingWipesTheKeyOnceTheLastUseEnds() throws {
        let (vault, _) = try makeVault()
        try vault.write("token:work", [1, 2, 3])
        #expect(vault.beginUse())
        vault.retire()
        #expect(!vault.beginUse(), "no new use once locked")
        #expect(!vault.isWiped, "the running use keeps the key until it ends")
        #expect(try vault.read("token:work") == [1, 2, 3])
        vault.endUse()
        #expect(vault.isWiped)
        #expect(throws: VaultError.closed) { try vault.read("token:work") }
    }

    @Test func openingRemovesOnlyStaleTemporaryFilesOfKilledWriters() throws {
        let card = SoftwareCard()
        let (vault, location) = try makeVault(card: card)
        try vault.write("token:work", [1])
        let stale = location.entriesDirectory + "/.0123abcd.tmp-999999-1"
        let fresh = location.entriesDirectory + "/.4567cdef.tmp-999998-2"
        FileManager.default.createFile(atPath: stale, contents: Data([0]))
        FileManager.default.createFile(atPath: fresh, contents: Data([0]))
        let anHourAgo = Date().addingTimeInterval(-3600)
        try FileManager.default.setAttributes([.modificationDate: anHourAgo], ofItemAtPath: stale)
        let header = try location.readHeader()
        let reopened = UnlockedVault(location: location, header: header,
                                     dataKey: try card.open(try #require(header.slots.first), vaultId: header.vaultId))
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: fresh))
        #expect(try reopened.read("token:work") == [1])
        #expect(try location.entryCount() == 1)
    }

    @Test func initNeverReplacesAVault() throws {
        let (_, location) = try makeVault()
        #expect(throws: VaultError.alreadyExists(path: location.directory)) { try NewVault.prepare(at: location) }
    }

    // MARK: fido2 slots on the software authenticator, through libfido2

    /// A software authenticator in memory; call again with the same `hid` to
    /// reopen it (GetInfo is read at open).
    func virtualKey(builtInUV: Bool = true, hid existing: VirtualHIDDevice? = nil) throws -> (VirtualHIDDevice, FIDODevice) {
        let hid = try existing ?? VirtualHIDDevice(configuration: VirtualAuthenticatorConfiguration(builtInUV: builtInUV))
        return (hid, try FIDODevice.open(.packetDevice(hid, DeviceDescriptor(
            path: "virtual", manufacturer: "test", product: "test key", vendorId: 0, productId: 0, isSoftware: true))))
    }

    @Test func aBiometricKeySlotOpensWithUVAndOnlyOnItsKey() throws {
        let (_, device) = try virtualKey()
        let plan = try FIDO2EnrolmentPlan(for: device.info)
        #expect(plan.userVerification && !plan.needsPIN)
        #expect(plan.credProtect == 2)
        let location = try temporaryLocation()
        let new = try NewVault.prepare(at: location)
        let slot = try FIDO2Slot.enrol(on: device, plan: plan, pin: nil, target: new.target, progress: nil)
        let vault = try new.create(with: slot)
        try vault.write("token:work", [42])
        guard case .fido2(let parameters) = slot.protector else { Issue.record("not fido2"); return }
        #expect(parameters.userVerification)
        #expect(parameters.deviceLabel == "test key")

        let header = try location.readHeader()
        #expect(try FIDO2Slot.find(on: device, among: header.slots) == slot)
        let key = try FIDO2Slot.open(slot, on: device, pin: nil, vaultId: header.vaultId, progress: nil)
        #expect(new.target.confirms(key))
        #expect(try UnlockedVault(location: location, header: header, dataKey: key).read("token:work") == [42])

        let (_, other) = try virtualKey()
        let error = #expect(throws: VaultError.self) { try FIDO2Slot.find(on: other, among: header.slots) }
        #expect(error?.description.contains("holds none of the vault's fido2 credentials") == true)
    }

    @Test func aPINOnlyKeyNeedsItsPINFirstAndAWrongOneIsNotRetried() throws {
        let (hid, device) = try virtualKey(builtInUV: false)
        try device.setPIN("4321")
        let (_, reopened) = try virtualKey(hid: hid)
        let plan = try FIDO2EnrolmentPlan(for: reopened.info)
        #expect(plan.userVerification && plan.needsPIN)
        let new = try NewVault.prepare(at: try temporaryLocation())
        #expect(throws: VaultError.securityKey(.pinRequired)) {
            try FIDO2Slot.enrol(on: reopened, plan: plan, pin: nil, target: new.target, progress: nil)
        }
        let slot = try FIDO2Slot.enrol(on: reopened, plan: plan, pin: "4321", target: new.target, progress: nil)
        let wrong = #expect(throws: VaultError.self) {
            try FIDO2Slot.open(slot, on: reopened, pin: "0000", vaultId: new.target.vaultId, progress: nil)
        }
        guard case .securityKey(.pinInvalid(let left))? = wrong else { Issue.record("\(String(describing: wrong))"); return }
        #expect(left == 7)
        #expect(new.target.confirms(try FIDO2Slot.open(slot, on: reopened, pin: "4321", vaultId: new.target.vaultId, progress: nil)))
    }

    @Test func aKeyWithoutPINOrUVUsesATouchAlone() throws {
        let (_, device) = try virtualKey(builtInUV: false)
        let plan = try FIDO2EnrolmentPlan(for: device.info)
        #expect(!plan.userVerification && !plan.needsPIN)
        let new = try NewVault.prepare(at: try temporaryLocation())
        let slot = try FIDO2Slot.enrol(on: device, plan: plan, pin: nil, target: new.target, progress: nil)
        #expect(new.target.confirms(try FIDO2Slot.open(slot, on: device, pin: nil, vaultId: new.target.vaultId, progress: nil)))
    }
}
