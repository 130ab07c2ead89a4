import Crypto
import Foundation
import Hexadecimal
import Testing
import TestSupport
@testable import Vault

/// A vault made once, in Fixtures/known-answer-vault, that every later build
/// must still open: its header and one entry as passkey-agent wrote them
/// (format version 1, one PIV slot), with the card's key fixed below. The
/// round-trip tests pass whatever the format is, as long as writer and reader
/// agree; this one fails when a change would leave a user's vault unreadable.
/// docs/VAULT.md describes the bytes.
///
/// The fixture is never regenerated: a change that needs a new one is a
/// format change, and needs a version and a migration instead.
@Suite(.ownThreads) struct KnownAnswerVaultTests {
    static let fixture = Interop.packageRoot + "/Tests/VaultTests/Fixtures/known-answer-vault"
    /// The card's 9D key: the scalar is SHA-256 of a fixed text, so the vector needs no secret file.
    static var cardKey: P256.KeyAgreement.PrivateKey {
        get throws {
            try P256.KeyAgreement.PrivateKey(rawRepresentation: Array(SHA256.hash(data: Array("passkey-agent vault known-answer vector, PIV 9D key".utf8))))
        }
    }
    static let vaultId = "0183c03e97938bed4fb7c779048f22e2"
    static let entryName = "token:known-answer"
    static let entryFile = "cc9d56b59f73239f0b2e393e2234214da21e5998ff4e0aeef335452fdb59553e"
    static let payload = #"{"accessToken":"AT-KNOWN-ANSWER","tokenType":"Bearer"}"#

    /// A private copy: git keeps neither 0600 nor 0700, and SecureFiles checks them.
    static func copy() throws -> VaultLocation {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("known-answer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/vault/entries", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        chmod(directory + "/vault", 0o700)
        for file in ["header", "entries/" + entryFile] {
            try FileManager.default.copyItem(atPath: fixture + "/" + file, toPath: directory + "/vault/" + file)
            chmod(directory + "/vault/" + file, 0o600)
        }
        return VaultLocation(directory: directory + "/vault")
    }

    @Test("the header of the known-answer vault decodes to its fixed fields and re-encodes to the same bytes")
    func header() throws {
        let location = try Self.copy()
        defer { try? FileManager.default.removeItem(atPath: location.directory + "/..") }
        let header = try location.readHeader()
        #expect(header.version == 1)
        #expect(Hexadecimal.encode(header.vaultId) == Self.vaultId)
        #expect(header.slots.count == 1)
        let slot = try #require(header.slots.first)
        guard case .piv(let piv) = slot.protector else { Issue.record("slot 1 is not a PIV slot"); return }
        #expect(piv.serialNumber == 24_681_357)
        #expect(piv.cardDescription.contains("Known Answer Reader 00 00"))
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: Self.fixture + "/header")))
        #expect(header.encoded() == bytes, "the header writer changed the bytes of an unchanged header")
    }

    @Test("the known-answer vault opens with the card's key, and its entry decrypts to the payload written in round 3")
    func entryDecrypts() throws {
        let location = try Self.copy()
        defer { try? FileManager.default.removeItem(atPath: location.directory + "/..") }
        let header = try location.readHeader()
        let slot = try #require(header.slots.first)
        guard case .piv(let piv) = slot.protector else { Issue.record("slot 1 is not a PIV slot"); return }
        let ephemeral = try P256.KeyAgreement.PublicKey(x963Representation: piv.ephemeralPublicKey)
        let shared = try Self.cardKey.sharedSecretFromKeyAgreement(with: ephemeral).withUnsafeBytes { SymmetricKey(data: $0) }
        let dataKey = try slot.unwrap(with: piv.derivation.wrappingKey(from: shared), vaultId: header.vaultId)
        let vault = UnlockedVault(location: location, header: header, dataKey: dataKey)
        #expect(try vault.read(Self.entryName) == Array(Self.payload.utf8))
        // The entry's file is named by the entry id: HMAC-SHA-256 of the name under a key derived from the data key.
        #expect(Hexadecimal.encode(EntryRecord.entryId(of: Self.entryName, dataKey: try dataKey.symmetricKey(), vaultId: header.vaultId)) == Self.entryFile)
    }

    @Test("another card's key does not open the known-answer vault")
    func otherKeyRefused() throws {
        let location = try Self.copy()
        defer { try? FileManager.default.removeItem(atPath: location.directory + "/..") }
        let header = try location.readHeader()
        let slot = try #require(header.slots.first)
        guard case .piv(let piv) = slot.protector else { Issue.record("slot 1 is not a PIV slot"); return }
        let ephemeral = try P256.KeyAgreement.PublicKey(x963Representation: piv.ephemeralPublicKey)
        let shared = try P256.KeyAgreement.PrivateKey().sharedSecretFromKeyAgreement(with: ephemeral).withUnsafeBytes { SymmetricKey(data: $0) }
        #expect(throws: VaultError.self) { try slot.unwrap(with: piv.derivation.wrappingKey(from: shared), vaultId: header.vaultId) }
    }
}
