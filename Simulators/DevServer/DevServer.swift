import Base64
import BeyondIdentityDevServer
import DevServerBase
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Hummingbird
import IDXDevServer
import Logging
import URLPolicy
import NIOCore
import OAuthDevServer
import PasswordlessDevServer
import ServiceLifecycle
import WebAuthn

/// A local, strict, passwordless.dev-compatible API server.
///
///     let server = try await DevServer.start(DevServerConfiguration())
///     // server.apiURL, server.apiKey, server.apiSecret …
///     await server.shutdown()
public enum DevServer {
    /// Validates the configuration, opens (or creates) the state, binds the
    /// listening socket and starts serving. Returns once the port is bound.
    public static func start(_ configuration: DevServerConfiguration) async throws(DevServerError) -> RunningDevServer {
        guard LoopbackHost.isLoopbackAddress(configuration.host) else {
            throw .invalidConfiguration("listen address \"\(configuration.host)\"",
                                        reason: "the devserver serves only on loopback (127.0.0.1, ::1 or localhost): it has no TLS and prints its secret")
        }
        guard (0...65535).contains(configuration.port) else {
            throw .invalidConfiguration("port \(configuration.port)", reason: "use 0 to 65535")
        }
        guard AppKeys.isValidAppId(configuration.appId) else {
            throw .invalidConfiguration("app id \"\(configuration.appId)\"", reason: "use lowercase letters, digits and hyphens")
        }
        try configuration.oauth.validate()
        try configuration.bi.validate()
        try configuration.idx.validate()
        let allowList = try AllowList(rpIds: configuration.rpIds, origins: configuration.effectiveOrigins)
        let logger = configuration.logger
        let store = try DevServerStore.open(dataDirectory: configuration.dataDirectory,
                                            appId: configuration.appId, logger: logger)
        let keys = await store.keys
        guard let keyMaterial = Base64URL.decode(keys.tokenKeyMaterial, padding: .refused), keyMaterial.count == 32 else {
            throw .stateFile(path: configuration.dataDirectory ?? "(memory)", reason: "the token key material is not 32 bytes of base64url")
        }
        let api = DevServerAPI(store: store, keys: keys,
                               tokens: TokenCodec(appId: keys.appId, keyMaterial: keyMaterial),
                               allowList: allowList, configuration: PasswordlessConfiguration(
                                   sessionLifetime: configuration.sessionLifetime, verifyTokenLifetime: configuration.verifyTokenLifetime,
                                   registerTokenLifetime: configuration.registerTokenLifetime,
                                   signInUserVerification: configuration.signInUserVerification, clock: configuration.clock))
        let signer: TokenSigner
        do { signer = try await TokenSigner(store.oauthSigningKeys()) } catch {
            throw .stateFile(path: configuration.dataDirectory ?? "(memory)", reason: "the OAuth signing keys could not be made or read")
        }
        let issuerBox = IssuerBox()
        let biSigner: BISigner
        do { biSigner = try await BISigner() } catch {
            throw .invalidConfiguration("BI signing key", reason: "it could not be made")
        }
        let bi = BIServer(issuerBox: issuerBox, signer: biSigner, store: BIStore(), clock: configuration.clock, host: configuration.host,
                          configuration: configuration.bi)
        let oauth = OAuthServer(issuerBox: issuerBox, clients: OAuthClients(configuration.oauth.clients), signer: signer,
                                store: OAuthStore(), api: api, configuration: configuration.oauth, externalIdP: bi, logger: logger)
        let idx = IDXServer(oauth: oauth, store: IDXStore(configuration.idx.users), configuration: configuration.idx)
        let hostInURL = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host

        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: Routes.router(api: api, oauth: oauth, bi: bi, idx: idx, logger: logger),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                // Set before the port is announced, so no client can ask before the issuer is known.
                issuerBox.set(origin: "http://\(hostInURL):\(port)")
                portContinuation.yield(port)
                portContinuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [application],
            gracefulShutdownSignals: configuration.handlesTerminationSignals ? [.sigterm, .sigint] : [],
            logger: logger))
        let running = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }

        var boundPort: Int?
        for await port in ports { boundPort = port }
        guard let port = boundPort, port > 0 else {
            let reason: String
            switch await running.result {
            case .failure(let error): reason = "\(error)"
            case .success: reason = "the server stopped before it was listening"
            }
            throw .listenFailed(address: "\(configuration.host):\(configuration.port)", reason: reason)
        }
        return RunningDevServer(
            apiURL: "http://\(hostInURL):\(port)", issuer: oauth.issuer, port: port, apiKey: keys.apiKey, apiSecret: keys.apiSecret,
            rpIds: allowList.rpIds, origins: allowList.origins,
            clientSecrets: Dictionary(configuration.oauth.clients.compactMap { client in client.secret.map { (client.clientId, $0) } },
                                      uniquingKeysWith: { _, last in last }),
            group: group, task: running, store: store)
    }

    /// A logger writing to standard error, so standard output carries only
    /// the start-up line.
    public static func standardErrorLogger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "passkey-devserver") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = level
        return logger
    }
}
