import FIDO
import FoundationEssentials
import Interaction
import Locking
import TestSupport
import VirtualAuthenticator
import WebAuthn

/// The software authenticator opened through libfido2's custom I/O, as the
/// agent opens `--device virtual`: every ceremony here meets the libfido2
/// code a USB key meets.
struct SoftwareKey {
    static let descriptor = DeviceDescriptor(path: "virtual", manufacturer: "test", product: "virtual", vendorId: 0, productId: 0,
                                             isSoftware: true)
    let hid: VirtualHIDDevice
    let device: FIDODevice

    init(_ configuration: VirtualAuthenticatorConfiguration = .init()) throws {
        hid = try VirtualHIDDevice(configuration: configuration)
        device = try FIDODevice.open(.packetDevice(hid, Self.descriptor))
    }

    /// A key without built-in UV whose PIN is `pin`, reopened so its GetInfo says so.
    static func withPIN(_ pin: String, _ configuration: VirtualAuthenticatorConfiguration = .init(builtInUV: false)) throws -> SoftwareKey {
        let key = try SoftwareKey(configuration)
        try key.device.setPIN(pin)
        return try SoftwareKey(hid: key.hid)
    }

    private init(hid: VirtualHIDDevice) throws {
        self.hid = hid
        device = try FIDODevice.open(.packetDevice(hid, Self.descriptor))
    }
}

/// A person who answers what a test scripts: PINs from a list, an account by
/// index. Every question is recorded.
final class ScriptedPerson: UserInteraction {
    let pins: Locked<[String]>
    let account: Int?
    let pinRequests = Locked<[PINRequest]>([])
    let accountLists = Locked<[[AccountChoice]]>([])
    let stages = Locked<[ProgressStage]>([])

    init(pins: [String] = [], account: Int? = nil) {
        self.pins = Locked(pins)
        self.account = account
    }

    func progress(_ stage: ProgressStage) { stages.withLock { $0.append(stage) } }

    func pin(_ request: PINRequest) async throws -> String {
        pinRequests.withLock { $0.append(request) }
        guard let pin = pins.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { throw ScriptEnded("no PIN scripted") }
        return pin
    }

    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        accountLists.withLock { $0.append(accounts) }
        guard let account else { throw ScriptEnded("no account choice scripted") }
        return account
    }

    func confirm(_ request: ConfirmationRequest) async throws -> Bool { false }
}

struct ScriptEnded: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Options as a relying party sends them.
enum Options {
    static func random(_ count: Int) -> Base64URLBytes { Base64URLBytes(WebAuthnFixtures.randomBytes(count)) }

    static func creation(rpId: String? = "example.org", userId: [UInt8] = Array("user-1".utf8), name: String = "alice",
                         displayName: String = "Alice", challenge: Base64URLBytes = random(32),
                         algorithms: [PublicKeyCredentialParameters] = [.init(.es256)],
                         residentKey: ResidentKeyRequirement? = .required, userVerification: UserVerificationRequirement? = .preferred,
                         attachment: AuthenticatorAttachment? = nil, attestation: AttestationConveyancePreference? = nil,
                         exclude: [[UInt8]] = [], extensions: AuthenticationExtensionsClientInputsJSON? = nil)
        -> PublicKeyCredentialCreationOptionsJSON {
        PublicKeyCredentialCreationOptionsJSON(
            rp: PublicKeyCredentialRpEntity(id: rpId, name: "Example"),
            user: PublicKeyCredentialUserEntityJSON(id: Base64URLBytes(userId), name: name, displayName: displayName),
            challenge: challenge, pubKeyCredParams: algorithms,
            excludeCredentials: exclude.map { PublicKeyCredentialDescriptorJSON(id: Base64URLBytes($0)) },
            authenticatorSelection: AuthenticatorSelectionCriteria(authenticatorAttachment: attachment, residentKey: residentKey,
                                                                   userVerification: userVerification),
            attestation: attestation, extensions: extensions)
    }

    static func request(rpId: String? = "example.org", allow: [[UInt8]] = [], challenge: Base64URLBytes = random(32),
                        userVerification: UserVerificationRequirement? = .preferred,
                        extensions: AuthenticationExtensionsClientInputsJSON? = nil) -> PublicKeyCredentialRequestOptionsJSON {
        PublicKeyCredentialRequestOptionsJSON(challenge: challenge, rpId: rpId,
                                              allowCredentials: allow.map { PublicKeyCredentialDescriptorJSON(id: Base64URLBytes($0)) },
                                              userVerification: userVerification, extensions: extensions)
    }
}

/// clientDataJSON as a relying party reads it.
struct ClientData: Decodable, Equatable {
    var type: String
    var challenge: String
    var origin: String
    var crossOrigin: Bool?

    init(_ bytes: Base64URLBytes) throws {
        self = try JSONDecoder().decode(ClientData.self, from: Data(bytes.bytes))
    }
}

/// The error `body` threw, or nil.
func thrownError(_ body: () async throws -> some Any) async -> (any Error)? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}
