import DevServerTestSupport
import FIDOTestSupport
import HTTPTransport
import Interaction
import Locking
import Passwordless
import Testing
import TestSupport
import VirtualAuthenticator

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
