import CBOR
import Testing
import TestSupport
import VirtualAuthenticator

@Suite("authenticatorGetInfo", .ownThreads)
struct GetInfoTests {
    @Test("reports versions, extensions, AAGUID, options, limits and algorithms")
    func fields() throws {
        let platform = try TestPlatform()
        let info = try #require(try platform.send(0x04).body)
        #expect(info[1] == ["FIDO_2_0", "FIDO_2_1"])
        #expect(info[2] == ["credProtect", "hmac-secret"])
        #expect(info[3]?.bytesValue == VirtualAuthenticatorConfiguration.defaultAAGUID)
        let options = try #require(info[4])
        #expect(options["rk"] == true)
        #expect(options["up"] == true)
        #expect(options["uv"] == true)
        #expect(options["clientPin"] == false)
        #expect(options["pinUvAuthToken"] == true)
        #expect(options["makeCredUvNotRqd"] == true)
        #expect(options["credMgmt"] == true)
        #expect(info[5]?.uintValue == 7608)
        #expect(info[6] == [2, 1])
        #expect(info[7]?.uintValue == 8)
        #expect(info[8]?.uintValue == 128)
        #expect(info[9] == ["usb"])
        #expect(info[0x0A] == [["alg": -7, "type": "public-key"], ["alg": -8, "type": "public-key"]])
        #expect(info[0x0D]?.uintValue == 4)
        #expect(info[0x14]?.uintValue == 100)
    }

    @Test("clientPin turns true once a PIN is set")
    func clientPinAfterSetPIN() throws {
        let platform = try TestPlatform()
        #expect(try platform.setPIN("1234", version: 2) == 0)
        #expect(try platform.send(0x04).body?[4]?["clientPin"] == true)
    }

    @Test("a PIN-only key reports no uv option and refuses built-in UV subcommands")
    func pinOnlyKey() throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(builtInUV: false))
        let options = try #require(try platform.send(0x04).body?[4])
        #expect(options["uv"] == nil)
        #expect(try platform.send(0x06, [1: 2, 2: 7]).status == CTAPStatus.invalidSubcommand.rawValue)
        #expect(try platform.send(0x01, TestPlatform.makeCredentialParameters(userVerification: true)).status
                == CTAPStatus.invalidOption.rawValue)
    }

    @Test("a configured AAGUID is reported and put in attested credential data")
    func configuredAAGUID() throws {
        let aaguid: [UInt8] = Array(0..<16)
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(aaguid: aaguid))
        #expect(try platform.send(0x04).body?[3]?.bytesValue == aaguid)
        let registration = try platform.register(TestPlatform.makeCredentialParameters())
        #expect(registration.authenticatorData.attestedCredentialData?.aaguid == aaguid)
    }

    @Test("a wrong-sized AAGUID is a configuration error")
    func badAAGUID() {
        #expect(throws: VirtualAuthenticatorError.self) {
            try CTAP2Authenticator(configuration: VirtualAuthenticatorConfiguration(aaguid: [1, 2, 3]))
        }
    }
}
