import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTestSupport
import Foundation
import Harness
import Interaction
import Locking
import Testing
import TestSupport
import WebAuthn

/// The devices capability's methods — `webauthn.*`, `pin.*`, `key.info`,
/// `credentials.*` — in-process over the software authenticator through
/// libfido2 (its state in a temporary home), judged by the WebAuthn
/// relying-party verifier.
@Suite(.ownThreads) struct DeviceMethodsTests {
    /// The devices capability's methods alone, over a `CapabilityStack` in a fresh home.
    final class Devices: Sendable {
        let stack: CapabilityStack
        let methods: MethodTable
        var harness: AgentHarness { stack.harness }
        var runtime: AgentRuntime { stack.runtime }
        var interaction: RecordingInteraction { stack.interaction }

        init() throws {
            let stack = try CapabilityStack()
            self.stack = stack
            methods = MethodTable { table in stack.devices.register(into: &table) }
        }
    }

    static let key = DeviceChoice(device: "virtual")
    static let origin = "https://example.org"

    static func creationOptions(userName: String = "alice", userVerification: String = "preferred") throws -> PublicKeyCredentialCreationOptionsJSON {
        try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self,
                                 from: Data(WebAuthnFixtures.creationOptions(userName: userName, userVerification: userVerification).utf8))
    }

    static func requestOptions(allow: [String] = []) throws -> PublicKeyCredentialRequestOptionsJSON {
        try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: Data(WebAuthnFixtures.requestOptions(allow: allow).utf8))
    }

    @Test("webauthn.create, then webauthn.get through the JSON path: a relying party verifies both, and the counter moves on")
    func createThenGet() async throws {
        let devices = try Devices()
        let options = try Self.creationOptions()
        let created = try await devices.methods.call(WebAuthnCreateMethod.self, .init(options: options, origin: Self.origin, device: Self.key),
                                                     interaction: devices.interaction)
        let registration = try RelyingParty.verifyRegistration(created, expecting: RegistrationExpectation(options: options,
                                                                                                          allowedOrigins: [Self.origin]))
        // `attestation: "none"` asked: the statement is dropped and the model not told (AAGUID zeroed, WebAuthn §5.1.3 step 23).
        #expect(registration.attestationFormat == "none" && registration.aaguid == [UInt8](repeating: 0, count: 16))
        #expect(registration.residentKey == true)
        #expect(devices.interaction.progressSeen.contains(.processing))

        // The socket's way: JSON params in, JSON result out.
        let request = try Self.requestOptions(allow: [created.id])
        let params = try JSONValue(encoding: WebAuthnGetMethod.Params(options: request, origin: Self.origin, device: Self.key))
        let answer = try await devices.methods.dispatch(method: WebAuthnGetMethod.name, params: params, interaction: devices.interaction)
        let assertion = try answer.decode(as: AuthenticationResponseJSON.self)
        let record = CredentialRecord(id: registration.credentialId, publicKey: registration.publicKey, signCount: registration.signCount,
                                      userHandle: options.user.id.bytes)
        let verified = try RelyingParty.verifyAuthentication(assertion, expecting: AuthenticationExpectation(options: request,
                                                                                                            allowedOrigins: [Self.origin],
                                                                                                            credential: record))
        #expect(verified.credentialId == registration.credentialId)
        #expect(verified.signCount > registration.signCount)

        // Discoverable: found without naming it, with its user.
        let discovered = try await devices.methods.call(WebAuthnGetMethod.self, .init(options: try Self.requestOptions(), origin: Self.origin,
                                                                                    device: Self.key), interaction: devices.interaction)
        #expect(discovered.rawId.bytes == registration.credentialId)
        #expect(discovered.response.userHandle?.bytes == options.user.id.bytes)
    }

    @Test("an origin the RP ID does not belong to is refused before the key is asked anything; so is a device name that is none")
    func refusedBeforeTheKey() async throws {
        let devices = try Devices()
        let options = try Self.creationOptions()
        let foreign = await agentError {
            try await devices.methods.call(WebAuthnCreateMethod.self, .init(options: options, origin: "https://example.org.evil.test", device: Self.key),
                                           interaction: devices.interaction)
        }
        #expect(foreign?.kind == .invalidInput, "\(String(describing: foreign))")
        let insecure = await agentError {
            try await devices.methods.call(WebAuthnCreateMethod.self, .init(options: options, origin: "http://example.org", device: Self.key),
                                           interaction: devices.interaction)
        }
        #expect(insecure?.kind == .invalidInput, "\(String(describing: insecure))")
        // With no key named (and none connected here), the request's own fault is what it hears, not `no_device`:
        // the origin, the RP ID and the challenge are checked before the broker looks for a key.
        let unplugged = await agentError {
            try await devices.methods.call(WebAuthnCreateMethod.self, .init(options: options, origin: "https://example.org.evil.test"),
                                           interaction: devices.interaction)
        }
        #expect(unplugged?.kind == .invalidInput, "\(String(describing: unplugged))")
        var shortChallenge = try Self.creationOptions()
        shortChallenge.challenge = Base64URLBytes(Array(repeating: 7, count: 8))
        let short = await agentError {
            try await devices.methods.call(WebAuthnCreateMethod.self, .init(options: shortChallenge, origin: Self.origin),
                                           interaction: devices.interaction)
        }
        #expect(short?.kind == .invalidInput && short?.message.contains("challenge") == true, "\(String(describing: short))")
        #expect(devices.interaction.progressSeen.isEmpty)
        let unnamed = await agentError {
            try await devices.methods.call(KeyInfoMethod.self, .init(device: DeviceChoice(device: "yubikey")), interaction: devices.interaction)
        }
        #expect(unnamed?.kind == .invalidInput)
    }

    @Test("pin.set, key.info, a wrong PIN counting down, pin.change; credentials listed and deleted with the PIN")
    func pinAndCredentials() async throws {
        let devices = try Devices()
        let call = devices.methods
        let interaction = devices.interaction
        let before = try await call.call(KeyInfoMethod.self, .init(device: Self.key), interaction: interaction)
        #expect(before.software && !before.pinSet && before.aaguid == "6f4d2a1e9c3b4e578a602b7d1c5e9f03")

        #expect(try await call.call(PINSetMethod.self, .init(device: Self.key, newPin: "123456"), interaction: interaction)
            == PINStatus(pinSet: true, retries: 8))
        #expect(await agentError { try await call.call(PINSetMethod.self, .init(device: Self.key, newPin: "654321"), interaction: interaction) }?
            .kind == .invalidInput)
        let wrong = await agentError { try await call.call(PINChangeMethod.self, .init(device: Self.key, pin: "000000", newPin: "654321"),
                                                           interaction: interaction) }
        #expect(wrong?.kind == .pinInvalid, "\(String(describing: wrong))")
        #expect(try await call.call(KeyInfoMethod.self, .init(device: Self.key), interaction: interaction).pinRetries == 7)
        #expect(try await call.call(PINChangeMethod.self, .init(device: Self.key, pin: "123456", newPin: "654321"), interaction: interaction)
            == PINStatus(pinSet: true, retries: 8))

        let options = try Self.creationOptions(userName: "bob")
        let created = try await call.call(WebAuthnCreateMethod.self, .init(options: options, origin: Self.origin, device: Self.key, pin: "654321"),
                                          interaction: interaction)
        let listed = try await call.call(CredentialsListMethod.self, .init(device: Self.key, pin: "654321"), interaction: interaction)
        #expect(listed.credentials.map(\.rpId) == ["example.org"])
        #expect(listed.credentials.first?.credentialId == created.id && listed.credentials.first?.userName == "bob")
        let deleted = try await call.call(CredentialsDeleteMethod.self, .init(device: Self.key, credentialId: created.id, pin: "654321"),
                                          interaction: interaction)
        #expect(deleted == DeletedCredential(credentialId: created.id, deleted: true))
        #expect(try await call.call(CredentialsListMethod.self, .init(device: Self.key, pin: "654321"), interaction: interaction).credentials.isEmpty)
    }
}
