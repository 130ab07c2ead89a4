import FIDO
import Foundation
import Testing
import TestSupport
import Vault
import VirtualAuthenticator

/// An entry that decrypts but whose tokens cannot be read (written by a
/// future version, or by hand): `token list` names it by its account and
/// `token rm ACCOUNT` removes it. The vault is made in-process on the
/// software authenticator's state file, so the agent then opens it as its
/// own — with `passkey unlock` alone, the slot naming the device.
@Suite(.ownThreads) struct UnreadableTokensTests {
    @Test("token list names an unreadable entry by its account; token rm removes it")
    func unreadableTokensAreListedAndRemovable() throws {
        let harness = try AgentHarness()
        let data = harness.home + "/data/passkey-agent"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        do {
            let hid = try VirtualHIDDevice(configuration: VirtualAuthenticatorConfiguration(statePath: data + "/virtual-authenticator.json"))
            // The agent's descriptor of its software authenticator: the slot records its product name.
            let device = try FIDODevice.open(.packetDevice(hid, DeviceDescriptor(
                path: "virtual", manufacturer: "passkey-agent", product: "software authenticator (not hardware)",
                vendorId: 0, productId: 0, isSoftware: true)))
            let new = try NewVault.prepare(at: VaultLocation(dataDirectory: data))
            let slot = try FIDO2Slot.enrol(on: device, plan: try FIDO2EnrolmentPlan(for: device.info), pin: nil,
                                           target: new.target, progress: nil)
            let vault = try new.create(with: slot)
            try vault.write("token:broken", Array("{\"not\":\"a token set\"}".utf8))
            vault.retire()
        }

        try harness.start()
        let unlocked = try harness.passkey(["unlock"])
        #expect(unlocked.status == 0, "\(unlocked.standardError)")
        let listed = try harness.passkey(["token", "list"])
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.contains("broken") && listed.standardOutput.contains("(cannot be read)"), "\(listed.standardOutput)")
        #expect(listed.standardError.contains("`passkey token rm broken`"), "\(listed.standardError)")
        let json = try harness.passkey(["token", "list", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["unreadableAccounts"] as? [String] == ["broken"], "\(json.standardOutput)")

        let removed = try harness.passkey(["token", "rm", "broken"])
        #expect(removed.status == 0, "\(removed.standardError)")
        let after = try harness.passkey(["token", "list", "--json"])
        let clean = try #require(try JSONSerialization.jsonObject(with: Data(after.standardOutput.utf8)) as? [String: Any])
        #expect((clean["damaged"] as? [Any])?.isEmpty == true && clean["unreadableAccounts"] == nil, "\(after.standardOutput)")
    }
}
