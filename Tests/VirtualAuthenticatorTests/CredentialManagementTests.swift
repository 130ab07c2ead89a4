import CBOR
import Crypto
import Testing
import TestSupport
import VirtualAuthenticator

@Suite("authenticatorCredentialManagement", .ownThreads)
struct CredentialManagementTests {
    /// Sends a subcommand authenticated with `token` (protocol 2), as libfido2's credman.c does.
    private func manage(_ platform: TestPlatform, command: UInt8, subCommand: UInt8, parameters: CBOR? = nil,
                        token: [UInt8]?) throws -> CTAPResponse {
        var request: [CBOR: CBOR] = [1: .unsigned(UInt64(subCommand))]
        if let parameters { request[2] = parameters }
        if let token {
            var message = [subCommand]
            parameters?.encode(into: &message)
            request[3] = 2
            request[4] = .bytes(PinSession.authenticate(token: token, message: message, version: 2))
        }
        return try platform.send(command, .map(request))
    }

    private func rpIdHash(_ rpId: String) -> [UInt8] { Array(SHA256.hash(data: Array(rpId.utf8))) }

    @Test("metadata, RPs, credentials, update and delete", arguments: [UInt8(0x41), 0x0A])
    func fullCycle(command: UInt8) throws {
        let platform = try TestPlatform()
        let alice = try platform.register(TestPlatform.makeCredentialParameters(userId: [1], userName: "alice", residentKey: true))
        let bob = try platform.register(TestPlatform.makeCredentialParameters(userId: [2], userName: "bob", residentKey: true,
                                                                              extensions: ["credProtect": 2]))
        _ = try platform.register(TestPlatform.makeCredentialParameters(rpId: "a.example", rpName: "A", userId: [3],
                                                                        residentKey: true))
        _ = try platform.register(TestPlatform.makeCredentialParameters(userId: [4]))  // not discoverable
        let token = try platform.uvToken(version: 2, permissions: 0x04, rpId: nil).get()

        let metadata = try manage(platform, command: command, subCommand: 1, token: token)
        #expect(metadata.body?[1]?.uintValue == 3)
        #expect(metadata.body?[2]?.uintValue == 97)

        let firstRP = try manage(platform, command: command, subCommand: 2, token: token)
        #expect(firstRP.body?[3] == ["id": "a.example", "name": "A"])
        #expect(firstRP.body?[4]?.bytesValue == rpIdHash("a.example"))
        #expect(firstRP.body?[5]?.uintValue == 2)
        let secondRP = try manage(platform, command: command, subCommand: 3, token: nil)
        #expect(secondRP.body?[3]?["id"] == "example.com")
        #expect(secondRP.body?[5] == nil)
        #expect(try manage(platform, command: command, subCommand: 3, token: nil).status == CTAPStatus.notAllowed.rawValue)

        let parameters: CBOR = [1: .bytes(rpIdHash("example.com"))]
        let first = try manage(platform, command: command, subCommand: 4, parameters: parameters, token: token)
        #expect(first.body?[9]?.uintValue == 2)
        #expect(first.body?[7]?["id"]?.bytesValue == bob.credentialId)
        #expect(first.body?[6] == ["id": .bytes([2]), "name": "bob", "displayName": "Alice Liddell"])
        #expect(first.body?[8] == bob.publicKey.cbor)
        #expect(first.body?[0x0A]?.uintValue == 2)
        let second = try manage(platform, command: command, subCommand: 5, token: nil)
        #expect(second.body?[7]?["id"]?.bytesValue == alice.credentialId)
        #expect(second.body?[0x0A]?.uintValue == 1)

        let update: CBOR = [2: ["id": .bytes(alice.credentialId), "type": "public-key"],
                            3: ["id": .bytes([1]), "name": "alice@example.com", "displayName": "Alice"]]
        #expect(try manage(platform, command: command, subCommand: 7, parameters: update, token: token).isOK)
        let updated = try manage(platform, command: command, subCommand: 4, parameters: parameters, token: token)
        #expect(try manage(platform, command: command, subCommand: 5, token: nil).body?[6]?["name"] == "alice@example.com")
        #expect(updated.isOK)

        let delete: CBOR = [2: ["id": .bytes(bob.credentialId), "type": "public-key"]]
        #expect(try manage(platform, command: command, subCommand: 6, parameters: delete, token: token).isOK)
        #expect(try manage(platform, command: command, subCommand: 6, parameters: delete, token: token).status
                == CTAPStatus.noCredentials.rawValue)
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters(allowList: [bob.credentialId])).status
                == CTAPStatus.noCredentials.rawValue)
        #expect(try manage(platform, command: command, subCommand: 1, token: token).body?[1]?.uintValue == 2)
    }

    @Test("authentication: token required, correct MAC, cm permission, RP binding")
    func authentication() throws {
        let platform = try TestPlatform()
        _ = try platform.register(TestPlatform.makeCredentialParameters(residentKey: true))
        #expect(try manage(platform, command: 0x41, subCommand: 1, token: nil).status
                == CTAPStatus.pinUvAuthTokenRequired.rawValue)
        let wrongToken = [UInt8](repeating: 9, count: 32)
        #expect(try manage(platform, command: 0x41, subCommand: 1, token: wrongToken).status
                == CTAPStatus.pinAuthInvalid.rawValue)
        let assertionToken = try platform.uvToken(version: 2, permissions: 0x02).get()
        #expect(try manage(platform, command: 0x41, subCommand: 1, token: assertionToken).status
                == CTAPStatus.pinAuthInvalid.rawValue)
        // A token bound to one RP lists that RP's credentials only.
        let bound = try platform.uvToken(version: 2, permissions: 0x04, rpId: "example.com").get()
        #expect(try manage(platform, command: 0x41, subCommand: 1, token: bound).status == CTAPStatus.pinAuthInvalid.rawValue)
        #expect(try manage(platform, command: 0x41, subCommand: 4, parameters: [1: .bytes(rpIdHash("x.example"))],
                           token: bound).status == CTAPStatus.pinAuthInvalid.rawValue)
        #expect(try manage(platform, command: 0x41, subCommand: 4, parameters: [1: .bytes(rpIdHash("example.com"))],
                           token: bound).isOK)
        #expect(try manage(platform, command: 0x41, subCommand: 0x20, token: bound).status
                == CTAPStatus.invalidSubcommand.rawValue)
    }

    @Test("with no discoverable credentials: NO_CREDENTIALS; a PIN token works too")
    func emptyAndPINToken() throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(builtInUV: false))
        #expect(try platform.setPIN("123456", version: 2) == 0)
        let token = try platform.pinToken("123456", version: 2, permissions: 0x04, rpId: nil).get()
        #expect(try manage(platform, command: 0x41, subCommand: 1, token: token).body?[1]?.uintValue == 0)
        #expect(try manage(platform, command: 0x41, subCommand: 2, token: token).status == CTAPStatus.noCredentials.rawValue)
        #expect(try manage(platform, command: 0x41, subCommand: 4, parameters: [1: .bytes(rpIdHash("example.com"))],
                           token: token).status == CTAPStatus.noCredentials.rawValue)
    }
}
