import DevServerBase
import FoundationEssentials
import PasswordlessDevServer
import ServiceLifecycle

/// A devserver that is listening: where it is, its keys, and how to stop it.
public final class RunningDevServer: Sendable {
    /// `http://127.0.0.1:<port>`, the base URL of every endpoint.
    public let apiURL: String
    /// `<apiURL>/oauth2/default`, the authorization server's issuer.
    public let issuer: String
    public let port: Int
    /// The public key for the `ApiKey` header.
    public let apiKey: String
    /// The secret for the `ApiSecret` header. Never log it.
    public let apiSecret: String
    /// The allowed RP IDs; the first is the primary one.
    public let rpIds: [String]
    public let origins: [String]
    /// The confidential OAuth clients' secrets, by client id. Never log them.
    public let clientSecrets: [String: String]

    public var rpId: String { rpIds.first ?? "" }

    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    /// Held so the state (and the data directory's lock) lives as long as the server;
    /// `shutdown()` releases the lock.
    private let store: DevServerStore

    init(apiURL: String, issuer: String, port: Int, apiKey: String, apiSecret: String, rpIds: [String], origins: [String],
         clientSecrets: [String: String], group: ServiceGroup, task: Task<Void, any Error>, store: DevServerStore) {
        self.apiURL = apiURL
        self.issuer = issuer
        self.port = port
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.rpIds = rpIds
        self.origins = origins
        self.clientSecrets = clientSecrets
        self.group = group
        self.task = task
        self.store = store
    }

    /// The one JSON line `passkey-devserver` prints at start-up:
    /// `{"apiUrl","apiKey","apiSecret","rpId","origins","issuer"}`, and
    /// `"clientSecrets":{ID: SECRET}` when there are confidential clients.
    public var startupLine: String {
        func quoted(_ text: String) -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        }
        return "{\"apiUrl\":\(quoted(apiURL)),\"apiKey\":\(quoted(apiKey)),\"apiSecret\":\(quoted(apiSecret)),"
            + "\"rpId\":\(quoted(rpId)),\"origins\":[\(origins.map(quoted).joined(separator: ","))],\"issuer\":\(quoted(issuer))"
            + (clientSecrets.isEmpty ? "" : ",\"clientSecrets\":{"
                + clientSecrets.sorted { $0.key < $1.key }.map { "\(quoted($0.key)):\(quoted($0.value))" }.joined(separator: ",") + "}")
            + "}"
    }

    /// Stops accepting connections, lets requests in flight finish, and returns when the server has stopped.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
        await store.releaseDataDirectory()
    }

    /// Returns when the server stops (after `shutdown()` or, when it handles
    /// them, SIGTERM/SIGINT); throws what stopped it if it failed.
    public func waitUntilStopped() async throws {
        try await task.value
    }
}
