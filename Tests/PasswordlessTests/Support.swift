import DevServerTestSupport
import FIDO
import HTTPTransport
import Interaction
import Locking
import Passwordless
import Testing
import TestSupport
import VirtualAuthenticator

/// The software authenticator opened through libfido2's custom I/O, as the
/// agent opens `--device virtual`.
struct SoftwareKey {
    let hid: VirtualHIDDevice
    let device: FIDODevice

    init(_ configuration: VirtualAuthenticatorConfiguration = .init()) throws {
        hid = try VirtualHIDDevice(configuration: configuration)
        device = try FIDODevice.open(.packetDevice(hid, DeviceDescriptor(
            path: "virtual", manufacturer: "test", product: "virtual", vendorId: 0, productId: 0, isSoftware: true)))
    }
}

/// The app's two halves against an in-process devserver: its backend on the
/// secret API, and the client's ceremonies on the public API.
struct PasswordlessApp {
    let harness: DevServerHarness
    let backend: PasswordlessBackend
    let ceremonies: PasswordlessCeremonies

    init(_ harness: DevServerHarness, apiKey: String? = nil, origin: String? = nil) throws {
        self.harness = harness
        let transport = HTTPTransport()
        let apiURL = try #require(harness.inProcess?.apiURL)
        // A trailing slash on the URL is the user's, not the API's.
        backend = PasswordlessBackend(apiURL: apiURL + "/", apiSecret: harness.apiSecret, transport: transport)
        let settings = try PasswordlessSettings(apiURL: apiURL + "/", apiKey: apiKey ?? harness.apiKey,
                                                rpId: harness.rpId, origin: origin)
        ceremonies = PasswordlessCeremonies(api: PasswordlessAPI(settings: settings, transport: transport))
    }

    /// A register token for `userId`, with an alias and discoverable unless told otherwise.
    func registerToken(_ userId: String, alias: String? = nil, discoverable: Bool = true) async throws -> String {
        try await backend.registerToken(.init(userId: userId, username: "\(userId)@example.com", displayName: "User \(userId)",
                                              aliases: alias.map { [$0] }, discoverable: discoverable))
    }
}

/// A person who answers the questions a test scripts: PINs from a list,
/// an account by index. Every question is recorded.
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
        guard let pin = pins.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { throw PasswordlessTestFailure("no PIN scripted") }
        return pin
    }

    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        accountLists.withLock { $0.append(accounts) }
        guard let account else { throw PasswordlessTestFailure("no account choice scripted") }
        return account
    }

    func confirm(_ request: ConfirmationRequest) async throws -> Bool { false }
}

struct PasswordlessTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
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
