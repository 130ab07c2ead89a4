import FIDO
import FIDOTestSupport
import Foundation
import Testing
import TestSupport
import VirtualAuthenticator

/// Credential management and reset through libfido2's `fido_credman_*` and
/// `fido_dev_reset` (the 0x41 preview command libfido2 1.12 sends), on the
/// software authenticator opened as the agent opens any key.
@Suite(.ownThreads) struct CredentialManagementThroughLibFIDO2Tests {
    static let pin = "246810"

    /// A PIN-only key with two discoverable credentials for example.org
    /// (one with credProtect 2) and one for example.com.
    func keyWithThreePasskeys(_ configuration: VirtualAuthenticatorConfiguration = .init(builtInUV: false)) throws -> SoftwareKey {
        let key = try SoftwareKey(configuration)
        try key.device.setPIN(Self.pin)
        let device = try key.reopened()
        for (rpId, user, protect) in [("example.org", "alice", nil), ("example.org", "bob", 2), ("example.com", "carol", nil)] as [(String, String, Int?)] {
            _ = try device.makeCredential(MakeCredentialRequest(
                clientDataHash: hash(rpId + user), rpId: rpId, rpName: rpId.uppercased(), userId: Array(user.utf8),
                userName: user, userDisplayName: user.capitalized, residentKey: true, userVerification: true,
                credProtect: protect), pin: Self.pin)
        }
        return key
    }

    @Test func listsCountsAndDeletesWithThePIN() throws {
        let key = try keyWithThreePasskeys()
        let device = try key.reopened()
        #expect(device.supportsCredentialManagement)

        let count = try device.discoverableCredentialCount(pin: Self.pin)
        #expect(count.existing == 3)
        #expect(count.remaining > 0)

        let parties = try device.managedRelyingParties(pin: Self.pin)
        #expect(Set(parties.map(\.id)) == ["example.org", "example.com"])
        #expect(parties.first { $0.id == "example.org" }?.name == "EXAMPLE.ORG")

        let all = try device.managedCredentials(pin: Self.pin)
        #expect(all.count == 3)
        let bob = try #require(all.first { $0.userName == "bob" })
        #expect(bob.rpId == "example.org" && bob.userDisplayName == "Bob" && bob.userId == Array("bob".utf8))
        #expect(bob.credProtect == 2)
        #expect(bob.hasLargeBlobKey == false)
        #expect(!bob.credentialId.isEmpty)

        let org = try device.managedCredentials(rpId: "example.org", pin: Self.pin)
        #expect(Set(org.compactMap(\.userName)) == ["alice", "bob"])
        #expect(try device.managedCredentials(rpId: "nowhere.example", pin: Self.pin).isEmpty)

        try device.deleteManagedCredential(id: bob.credentialId, pin: Self.pin)
        #expect(try device.managedCredentials(rpId: "example.org", pin: Self.pin).compactMap(\.userName) == ["alice"])
        #expect(try device.discoverableCredentialCount(pin: Self.pin).existing == 2)
        // The same id again: the key no longer holds it.
        #expect(throws: FIDOError.noCredentials) { try device.deleteManagedCredential(id: bob.credentialId, pin: Self.pin) }
    }

    @Test func aWrongPINSaysTheTriesLeftAndNoPINIsRefusedBeforeTheKey() throws {
        let key = try keyWithThreePasskeys()
        let device = try key.reopened()
        #expect(throws: FIDOError.pinInvalid(retriesLeft: 7)) { try device.managedCredentials(pin: "000000") }
        #expect(throws: FIDOError.pinRequired) { try device.managedCredentials(pin: nil) }
        // The key still answers the right PIN (one miss is not a block).
        #expect(try device.managedCredentials(pin: Self.pin).count == 3)
    }

    @Test func aKeyWithAFingerprintListsWithoutThePIN() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(builtInUV: true))
        _ = try key.device.makeCredential(MakeCredentialRequest(
            clientDataHash: hash("x"), rpId: "example.net", userId: [7], userName: "dave",
            residentKey: true, userVerification: true))
        let listed = try key.device.managedCredentials(pin: nil)
        #expect(listed.map(\.userName) == ["dave"])
        #expect(listed.first?.rpId == "example.net")
    }

    @Test func anEmptyKeyListsNothing() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(builtInUV: false))
        try key.device.setPIN(Self.pin)
        let device = try key.reopened()
        #expect(try device.managedCredentials(pin: Self.pin).isEmpty)
        #expect(try device.discoverableCredentialCount(pin: Self.pin).existing == 0)
    }

    @Test func aKeyWithoutAPINOrFingerprintSaysToSetAPIN() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(builtInUV: false))
        #expect(throws: FIDOError.pinNotSet) { try key.device.managedCredentials(pin: nil) }
    }

    @Test func resetRightAfterPowerUpWipesEverything() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("credman-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = VirtualAuthenticatorConfiguration(statePath: directory.appendingPathComponent("va.json").path,
                                                              builtInUV: false)
        _ = try keyWithThreePasskeys(configuration)
        // Plugged in again (a new instance from the state file): the reset window opens anew.
        let replugged = try SoftwareKey(configuration)
        #expect(try replugged.device.managedCredentials(pin: Self.pin).count == 3)
        try replugged.device.reset()
        let after = try replugged.reopened()
        #expect(after.info.hasPIN == false, "the PIN went with the reset")
        #expect(throws: FIDOError.noCredentials) {
            try after.getAssertion(GetAssertionRequest(rpId: "example.org", clientDataHash: hash("y")))
        }
    }

    @Test func resetOutsideItsWindowSaysHowToPowerUpAgain() throws {
        let key = try keyWithThreePasskeys(VirtualAuthenticatorConfiguration(builtInUV: false, resetWindowMilliseconds: 0))
        let device = try key.reopened()
        #expect(throws: FIDOError.resetNotAllowed(.virtual)) { try device.reset() }
        #expect(try device.managedCredentials(pin: Self.pin).count == 3, "nothing was deleted")
        #expect(FIDOError.resetNotAllowed(.usb).description
                == "reset is only allowed within 10 seconds of plugging the key in: unplug it, plug it back, and run this again")
        #expect(FIDOError.resetNotAllowed(.nfc).description
                == "reset is only allowed within 10 seconds of putting the key on the reader: take it off the reader, put it back, and run this again")
    }

    @Test func resetDeclinedAtTheKeyIsDenied() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .deny, builtInUV: false))
        #expect(throws: FIDOError.operationDenied) { try key.device.reset() }
    }
}
