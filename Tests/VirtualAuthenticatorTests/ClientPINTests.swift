import CBOR
import Crypto
import Foundation
import Testing
import TestSupport
import VirtualAuthenticator

@Suite("authenticatorClientPIN", .ownThreads)
struct ClientPINTests {
    @Test("setPIN then changePIN; the old PIN stops working", arguments: [UInt8(1), 2])
    func setAndChange(version: UInt8) throws {
        let platform = try TestPlatform()
        #expect(try platform.pinToken("1234", version: version) == .failure(CTAPStatusCode(CTAPStatus.pinNotSet.rawValue)))
        #expect(try platform.setPIN("1234", version: version) == 0)
        // A second setPIN is refused.
        #expect(try platform.setPIN("5678", version: version) == CTAPStatus.pinAuthInvalid.rawValue)
        #expect(try platform.pinToken("1234", version: version).get().count == 32)
        #expect(try platform.changePIN(from: "1234", to: "béà9", version: version) == 0)
        #expect(try platform.pinToken("béà9", version: version).get().count == 32)
        #expect(try platform.pinToken("1234", version: version) == .failure(CTAPStatusCode(CTAPStatus.pinInvalid.rawValue)))
    }

    @Test("PIN policy: at least 4 code points, at most 63 bytes", arguments: [UInt8(1), 2])
    func pinPolicy(version: UInt8) throws {
        let platform = try TestPlatform()
        let violation = CTAPStatus.pinPolicyViolation.rawValue
        #expect(try platform.setPIN("123", version: version) == violation)
        #expect(try platform.setPIN(String(repeating: "7", count: 64), version: version) == violation)
        // "ééé" is 6 bytes but 3 code points.
        #expect(try platform.setPIN("ééé", version: version) == violation)
        #expect(try platform.setPIN(String(repeating: "7", count: 63), version: version) == 0)
    }

    @Test("wrong PINs: retries fall before the check, 3 in a row need a power cycle, 0 blocks", arguments: [UInt8(1), 2])
    func retriesAndBlocking(version: UInt8) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = VirtualAuthenticatorConfiguration(statePath: directory.appendingPathComponent("state.json").path)
        var platform = try TestPlatform(configuration)
        #expect(try platform.setPIN("123456", version: version) == 0)
        #expect(try platform.pinRetries().retries == 8)
        let invalid = CTAPStatusCode(CTAPStatus.pinInvalid.rawValue)
        let authBlocked = CTAPStatusCode(CTAPStatus.pinAuthBlocked.rawValue)
        let blocked = CTAPStatusCode(CTAPStatus.pinBlocked.rawValue)

        #expect(try platform.pinToken("000000", version: version) == .failure(invalid))
        #expect(try platform.pinRetries().retries == 7)
        #expect(try platform.pinToken("000000", version: version) == .failure(invalid))
        #expect(try platform.pinToken("000000", version: version) == .failure(authBlocked))
        #expect(try platform.pinRetries() == (5, true))
        // Even the right PIN is refused until a power cycle, and costs nothing.
        #expect(try platform.pinToken("123456", version: version) == .failure(authBlocked))
        #expect(try platform.pinRetries().retries == 5)

        platform = try TestPlatform(configuration)  // power cycle
        #expect(try platform.pinRetries() == (5, false))
        #expect(try platform.pinToken("000000", version: version) == .failure(invalid))
        #expect(try platform.pinToken("000000", version: version) == .failure(invalid))
        #expect(try platform.pinToken("000000", version: version) == .failure(authBlocked))

        platform = try TestPlatform(configuration)
        #expect(try platform.pinRetries().retries == 2)
        #expect(try platform.pinToken("000000", version: version) == .failure(invalid))
        #expect(try platform.pinToken("000000", version: version) == .failure(blocked))
        #expect(try platform.pinRetries().retries == 0)
        #expect(try platform.pinToken("123456", version: version) == .failure(blocked))
        platform = try TestPlatform(configuration)
        #expect(try platform.pinToken("123456", version: version) == .failure(blocked))
        #expect(try platform.changePIN(from: "123456", to: "654321", version: version) == CTAPStatus.pinBlocked.rawValue)
    }

    @Test("a correct PIN restores the retries")
    func correctPINRestoresRetries() throws {
        let platform = try TestPlatform()
        #expect(try platform.setPIN("123456", version: 2) == 0)
        _ = try platform.pinToken("999999", version: 2)
        _ = try platform.pinToken("999999", version: 2)
        #expect(try platform.pinRetries().retries == 6)
        #expect(try platform.pinToken("123456", version: 2).get().count == 32)
        #expect(try platform.pinRetries() == (8, false))
    }

    @Test("a wrong PIN regenerates the key agreement key")
    func mismatchRegeneratesKeyAgreement() throws {
        let platform = try TestPlatform()
        #expect(try platform.setPIN("123456", version: 2) == 0)
        let before = try platform.send(0x06, [1: 2, 2: 2]).body?[1]
        _ = try platform.pinToken("999999", version: 2)
        let after = try platform.send(0x06, [1: 2, 2: 2]).body?[1]
        #expect(before != nil && before != after)
        // The same key is returned while nothing happens.
        #expect(try platform.send(0x06, [1: 2, 2: 2]).body?[1] == after)
    }

    @Test("changing the PIN invalidates tokens issued before")
    func changeInvalidatesTokens() throws {
        let platform = try TestPlatform()
        #expect(try platform.setPIN("123456", version: 2) == 0)
        let token = try platform.pinToken("123456", version: 2, permissions: 0x01).get()
        #expect(try platform.changePIN(from: "123456", to: "7654321", version: 2) == 0)
        let clientDataHash = [UInt8](repeating: 1, count: 32)
        let request = TestPlatform.makeCredentialParameters(
            clientDataHash: clientDataHash,
            pinUvAuthParam: PinSession.authenticate(token: token, message: clientDataHash, version: 2), pinUvAuthProtocol: 2)
        #expect(try platform.send(0x01, request).status == CTAPStatus.pinAuthInvalid.rawValue)
    }

    @Test("a token works for its permission and RP only", arguments: [UInt8(1), 2])
    func tokenPermissionsAndRPBinding(version: UInt8) throws {
        let platform = try TestPlatform()
        #expect(try platform.setPIN("123456", version: version) == 0)
        let clientDataHash = [UInt8](repeating: 2, count: 32)
        func registration(token: [UInt8], rpId: String = "example.com") -> CBOR {
            TestPlatform.makeCredentialParameters(
                rpId: rpId, clientDataHash: clientDataHash,
                pinUvAuthParam: PinSession.authenticate(token: token, message: clientDataHash, version: version),
                pinUvAuthProtocol: version)
        }
        // ga only: makeCredential refused.
        let assertionOnly = try platform.pinToken("123456", version: version, permissions: 0x02).get()
        #expect(try platform.send(0x01, registration(token: assertionOnly)).status == CTAPStatus.pinAuthInvalid.rawValue)
        // mc for example.com: other.example refused, example.com works once.
        let makeOnly = try platform.pinToken("123456", version: version, permissions: 0x01).get()
        #expect(try platform.send(0x01, registration(token: makeOnly, rpId: "other.example")).status
                == CTAPStatus.pinAuthInvalid.rawValue)
        let made = try platform.register(registration(token: makeOnly))
        #expect(made.authenticatorData.flags.contains(.userVerified))
        // A pinUvAuthParam for other data fails.
        let wrong = TestPlatform.makeCredentialParameters(
            clientDataHash: clientDataHash, pinUvAuthParam: [UInt8](repeating: 0, count: version == 1 ? 16 : 32),
            pinUvAuthProtocol: version)
        #expect(try platform.send(0x01, wrong).status == CTAPStatus.pinAuthInvalid.rawValue)
        // mc/ga without an rpId, permissions 0 and unsupported permissions.
        #expect(try platform.pinToken("123456", version: version, permissions: 0x01, rpId: nil)
                == .failure(CTAPStatusCode(CTAPStatus.missingParameter.rawValue)))
        #expect(try platform.pinToken("123456", version: version, permissions: 0)
                == .failure(CTAPStatusCode(CTAPStatus.invalidParameter.rawValue)))
        #expect(try platform.pinToken("123456", version: version, permissions: 0x08)
                == .failure(CTAPStatusCode(CTAPStatus.unauthorizedPermission.rawValue)))
    }

    @Test("getPinToken (0x05) issues a token with the default mc and ga permissions")
    func legacyGetPinToken() throws {
        let platform = try TestPlatform()
        #expect(try platform.setPIN("123456", version: 1) == 0)
        let session = try platform.pinSession(1)
        let response = try platform.send(0x06, [1: 1, 2: 5, 3: session.platformCOSEKey,
                                                6: .bytes(try session.encrypt(PinSession.pinHash("123456")))])
        let token = try session.decrypt(try #require(response.body?[2]?.bytesValue))
        let clientDataHash = [UInt8](repeating: 4, count: 32)
        let registration = try platform.register(TestPlatform.makeCredentialParameters(
            clientDataHash: clientDataHash,
            pinUvAuthParam: PinSession.authenticate(token: token, message: clientDataHash, version: 1), pinUvAuthProtocol: 1))
        #expect(registration.authenticatorData.flags.contains(.userVerified))
    }

    @Test("built-in UV tokens (0x06): approve gives a token; deny costs UV retries", arguments: [UInt8(1), 2])
    func uvTokens(version: UInt8) throws {
        let platform = try TestPlatform()
        let token = try platform.uvToken(version: version).get()
        #expect(token.count == 32)
        #expect(try platform.uvRetries() == 8)
        // The fingerprint counts as the touch: no second user action for the assertion.
        let registration = try platform.register(TestPlatform.makeCredentialParameters())
        let uvToken = try platform.uvToken(version: version, permissions: 0x02).get()
        platform.authenticator.presencePolicy = .deny
        let clientDataHash = [UInt8](repeating: 5, count: 32)
        let assertion = try platform.authenticate(TestPlatform.getAssertionParameters(
            clientDataHash: clientDataHash, allowList: [registration.credentialId],
            pinUvAuthParam: PinSession.authenticate(token: uvToken, message: clientDataHash, version: version),
            pinUvAuthProtocol: version))
        #expect(assertion.authenticatorData.flags == [.userPresent, .userVerified])

        platform.authenticator.verificationPolicy = .deny
        #expect(try platform.uvToken(version: version) == .failure(CTAPStatusCode(CTAPStatus.uvInvalid.rawValue)))
        #expect(try platform.uvRetries() == 7)
    }

    @Test("eight failed fingerprints block built-in UV; a correct PIN unblocks it")
    func uvBlocking() throws {
        let platform = try TestPlatform(VirtualAuthenticatorConfiguration(verification: .deny))
        #expect(try platform.setPIN("123456", version: 2) == 0)
        for _ in 0..<7 {
            #expect(try platform.uvToken(version: 2) == .failure(CTAPStatusCode(CTAPStatus.uvInvalid.rawValue)))
        }
        #expect(try platform.uvToken(version: 2) == .failure(CTAPStatusCode(CTAPStatus.uvBlocked.rawValue)))
        #expect(try platform.uvRetries() == 0)
        platform.authenticator.verificationPolicy = .approve
        #expect(try platform.uvToken(version: 2) == .failure(CTAPStatusCode(CTAPStatus.uvBlocked.rawValue)))
        _ = try platform.pinToken("123456", version: 2).get()
        #expect(try platform.uvRetries() == 8)
        #expect(try platform.uvToken(version: 2).get().count == 32)
    }

    @Test("empty pinUvAuthParam (libfido2's touch probe): a touch, then PIN_NOT_SET or PIN_INVALID")
    func touchProbe() throws {
        let platform = try TestPlatform()
        let probe = TestPlatform.makeCredentialParameters(rpId: "localhost", userId: [0], pinUvAuthParam: [],
                                                          pinUvAuthProtocol: 2)
        #expect(try platform.send(0x01, probe).status == CTAPStatus.pinNotSet.rawValue)
        #expect(try platform.setPIN("123456", version: 2) == 0)
        #expect(try platform.send(0x01, probe).status == CTAPStatus.pinInvalid.rawValue)
        platform.authenticator.presencePolicy = .deny
        #expect(try platform.send(0x01, probe).status == CTAPStatus.operationDenied.rawValue)
    }

    @Test("pinUvAuthParam without a protocol, or with an unknown one")
    func protocolChecks() throws {
        let platform = try TestPlatform()
        let missing = TestPlatform.makeCredentialParameters(pinUvAuthParam: [1, 2, 3])
        #expect(try platform.send(0x01, missing).status == CTAPStatus.missingParameter.rawValue)
        let unknown = TestPlatform.makeCredentialParameters(pinUvAuthParam: [1, 2, 3], pinUvAuthProtocol: 3)
        #expect(try platform.send(0x01, unknown).status == CTAPStatus.invalidParameter.rawValue)
        #expect(try platform.send(0x06, [1: 3, 2: 2]).status == CTAPStatus.invalidParameter.rawValue)
        #expect(try platform.send(0x06, [1: 2, 2: 0x42]).status == CTAPStatus.invalidSubcommand.rawValue)
    }
}
