import Base64
import FIDO
import FoundationEssentials
import Interaction
import PacketDevice
import Synchronization
import VirtualAuthenticator
import WebAuthn
import WebAuthnClient

/// Real traffic for seeds: a WebAuthn registration and sign-in run by
/// `WebAuthnClient` through libfido2 against the virtual authenticator, with a
/// PIN set first, as the agent runs them. Everything libfido2 writes and the
/// device answers is recorded, so the CTAPHID, CTAP2, CBOR and WebAuthn seeds
/// are the bytes real code produces, not bytes typed in by hand.
struct RecordedCeremony: Sendable {
    /// Every 64-byte packet libfido2 wrote, in order, the channel id replaced
    /// by `CTAPHIDFuzzing.placeholderChannel` after INIT allocated one.
    var hostPackets: [[UInt8]]
    /// Each CTAP2 request (command byte ‖ CBOR) libfido2 sent, and the answer.
    var requests: [[UInt8]]
    var responses: [[UInt8]]
    var registration: RegistrationResponseJSON
    var authentication: AuthenticationResponseJSON
    var creationOptions: [UInt8]
    var requestOptions: [UInt8]

    /// The ceremony is run once per process; every target's seeds share it.
    static func shared() async throws -> RecordedCeremony {
        if let done = cache.withLock({ $0 }) { return done }
        let recorded = try await record()
        cache.withLock { $0 = recorded }
        return recorded
    }

    private static let cache = Mutex<RecordedCeremony?>(nil)

    /// Fixed values, so the verifier target's expectations match the seeds.
    static let challenge = [UInt8](repeating: 0x5A, count: 32)
    static let origin = "https://login.example.com"
    static let rpId = "example.com"
    static let pin = "fuzz-seed-1234"

    private static func record() async throws -> RecordedCeremony {
        let hid = try VirtualHIDDevice(configuration: VirtualAuthenticatorConfiguration(builtInUV: false))
        let recorder = RecordingPacketDevice(hid)
        let descriptor = DeviceDescriptor(path: "virtual", manufacturer: "passkey-fuzz", product: "seed recorder",
                                          vendorId: 0, productId: 0, isSoftware: true)
        try FIDODevice.open(.packetDevice(recorder, descriptor)).setPIN(pin)
        // Opened again, as after a replug: GetInfo now says a PIN is set.
        let device = try FIDODevice.open(.packetDevice(recorder, descriptor))

        let challenge = Base64URL.encode(challenge)
        let creation = """
            {"rp":{"id":"\(rpId)","name":"Example"},
             "user":{"id":"dXNlci0x","name":"alice@example.com","displayName":"Alice"},
             "challenge":"\(challenge)","pubKeyCredParams":[{"type":"public-key","alg":-7},{"type":"public-key","alg":-8}],
             "authenticatorSelection":{"residentKey":"required","userVerification":"required"},
             "attestation":"direct","extensions":{"credProps":true,"hmacCreateSecret":true,"credentialProtectionPolicy":"userVerificationOptionalWithCredentialIDList"}}
            """
        let options = try JSONDecoder().decode(PublicKeyCredentialCreationOptionsJSON.self, from: Data(creation.utf8))
        let webOrigin = try WebAuthnOrigin(origin)
        let registration = try await CreateCredential(options: options, origin: webOrigin)
            .run(on: device, pin: pin, interaction: SeedUser(pin: pin))

        let request = """
            {"challenge":"\(challenge)","rpId":"\(rpId)","userVerification":"required",
             "allowCredentials":[{"type":"public-key","id":"\(Base64URL.encode(registration.rawId.bytes))"}],
             "extensions":{"hmacGetSecret":{"salt1":"\(Base64URL.encode([UInt8](repeating: 1, count: 32)))"}}}
            """
        let requestOptions = try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: Data(request.utf8))
        let authentication = try await GetCredential(options: requestOptions, origin: webOrigin)
            .run(on: device, pin: pin, interaction: SeedUser(pin: pin))

        let traffic = recorder.traffic()
        return RecordedCeremony(
            hostPackets: CTAPHIDFuzzing.withPlaceholderChannel(traffic.written),
            requests: CTAPHIDFuzzing.cborMessages(in: traffic.written),
            responses: CTAPHIDFuzzing.cborMessages(in: traffic.read),
            registration: registration, authentication: authentication,
            creationOptions: Array(creation.utf8), requestOptions: Array(request.utf8))
    }
}

/// The person at the keyboard during seed recording: knows the PIN, picks the first account.
private struct SeedUser: UserInteraction {
    let pin: String
    func progress(_ stage: ProgressStage) {}
    func pin(_ request: PINRequest) async throws -> String { pin }
    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int { 0 }
    func confirm(_ request: ConfirmationRequest) async throws -> Bool { true }
}

/// A packet device that passes everything through to the virtual
/// authenticator and keeps a copy of both directions.
private final class RecordingPacketDevice: CTAPHIDPacketDevice {
    private let device: VirtualHIDDevice
    private let log = Mutex<(written: [[UInt8]], read: [[UInt8]])>(([], []))

    init(_ device: VirtualHIDDevice) { self.device = device }

    func write(_ packet: [UInt8]) {
        log.withLock { $0.written.append(packet) }
        device.write(packet)
    }

    func read(timeoutMilliseconds: Int) -> [UInt8]? {
        let packet = device.read(timeoutMilliseconds: timeoutMilliseconds)
        if let packet { log.withLock { $0.read.append(packet) } }
        return packet
    }

    func close() { device.close() }

    func traffic() -> (written: [[UInt8]], read: [[UInt8]]) { log.withLock { $0 } }
}
