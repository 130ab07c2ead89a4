// passkey-devserver: a local, strict, passwordless.dev-compatible API server.
// Prints one JSON line with its URL and keys, then serves until SIGTERM.
#if canImport(Glibc)
import BeyondIdentityDevServer
import BuildInfo
import DevServerBase
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import DevServer
import IDXDevServer
import Logging
import OAuthDevServer
import StandardError
import WebAuthn

@main
struct PasskeyDevServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey-devserver",
        abstract: "A local, strict, passwordless.dev-compatible API server.",
        discussion: """
            Prints one JSON line on standard output — {"apiUrl","apiKey","apiSecret","rpId","origins","issuer"}, \
            and "clientSecrets" {ID: SECRET} with confidential clients — \
            then serves until SIGTERM or SIGINT. Logs go to standard error. See docs/DEVSERVER.md.
            """,
        version: BuildInfo.versionLine(program: "passkey-devserver"))

    @Option(help: "Address and port to listen on; port 0 picks a free one. Loopback only.")
    var listen = "127.0.0.1:0"

    @Option(name: .customLong("rp-id"), help: "An RP ID the app may use (repeatable; the first is the primary one).")
    var rpIds: [String] = []

    @Option(name: .customLong("origin"), help: "An origin the app may use (repeatable). Default: https://<rp-id> for each RP ID.")
    var origins: [String] = []

    @Option(name: .customLong("data-dir"), help: "Keep keys, users, aliases and credentials in this directory (0700) across restarts.")
    var dataDirectory: String?

    @Option(name: .customLong("app-id"), help: "The app id that prefixes the keys.")
    var appId = "devapp"

    @Option(name: .customLong("session-ttl"), help: "Seconds a begin session stays valid.")
    var sessionTTL = 120

    @Option(name: .customLong("sign-in-user-verification"),
            help: "User verification /signin/begin asks for: preferred, required or discouraged.")
    var signInUserVerification = "preferred"

    @Option(name: .customLong("oauth-client"),
            help: "Add a public OAuth client: ID=REDIRECT[,REDIRECT…] (repeatable). The client cli is built in.")
    var oauthClients: [String] = []

    @Option(name: .customLong("oauth-confidential-client"),
            help: "Add a confidential OAuth client: ID=REDIRECT[,REDIRECT…] (repeatable). Its secret is made at start and given in the start-up line's clientSecrets.")
    var oauthConfidentialClients: [String] = []

    @Option(name: .customLong("access-token-lifetime"), help: "Seconds access and ID tokens are valid (1 to 86400).")
    var accessTokenLifetime = 3600

    @Option(name: .customLong("device-code-lifetime"), help: "Seconds a device code can be approved and redeemed (1 to 86400).")
    var deviceCodeLifetime = 600

    @Option(name: .customLong("device-interval"), help: "Seconds a device must wait between polls (1 to 3600).")
    var deviceInterval = 5

    @Option(name: .customLong("id-token-alg"), help: "ID-token signature algorithm: ES256 or RS256.")
    var idTokenAlgorithm = "ES256"

    @Option(name: .customLong("omit-from-discovery"),
            help: "Leave revocation_endpoint or device_authorization_endpoint out of the OpenID discovery document (repeatable).")
    var omittedFromDiscovery: [String] = []

    @Option(name: .customLong("omit-from-metadata"),
            help: "Leave revocation_endpoint or device_authorization_endpoint out of the RFC 8414 metadata (repeatable).")
    var omittedFromMetadata: [String] = []

    @Option(name: .customLong("bi-invoke-url"),
            help: "The BI-like IdP's invoke URL: /authorize sends the browser to <url>/bi-authenticate?request=<JWT>.")
    var biInvokeURL = "io.github.passkey-agent:/invoke"

    @Option(name: .customLong("bi-invocation"), help: "How BI /authorize hands over that URL: automatic (302) or manual (JSON).")
    var biInvocation = "automatic"

    @Option(name: .customLong("bi-rp-id"), help: "The RP ID of the BI realm's passkeys (origin https://<rp-id>).")
    var biRpId = "bi.passkey.test"

    @Option(name: .customLong("bi-deny-user"), help: "A BI username whose proofs get policy_denied (repeatable).")
    var biDeniedUsers: [String] = []

    @Option(name: .customLong("bi-transaction-lifetime"), help: "Seconds a BI request JWT can be proved (1 to 86400).")
    var biTransactionLifetime = 300

    @Option(name: .customLong("idx-user"), help: "An IDX (Okta Identity Engine) user without a password (repeatable).")
    var idxUsers: [String] = []

    @Option(name: .customLong("idx-users-file"),
            help: "A file of IDX users, one per line: NAME or NAME:PASSWORD (passwords never on the command line).")
    var idxUsersFile: String?

    @Option(name: .customLong("idx-state-lifetime"), help: "Seconds an IDX stateHandle stays valid (1 to 86400).")
    var idxStateLifetime = 600

    @Option(name: .customLong("idx-rp-id"), help: "The RP ID of IDX security keys. Default: the issuer's host.")
    var idxRpId: String?

    @Option(name: .customLong("idx-origin"), help: "An origin IDX clientDataJSON may name besides the issuer's (repeatable).")
    var idxOrigins: [String] = []

    @Option(name: .customLong("idx-user-verification"), help: "What IDX's security key steps ask of user verification: preferred or required.")
    var idxUserVerification = "preferred"

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(name: .customLong("clock-file"), help: ArgumentHelp(
        "For tests: run the clock ahead by the whole seconds written in this file.",
        discussion: "Read at every reading of the time (absent or unreadable: no offset; at most a year), so a test expires a lifetime by writing a number instead of sleeping."))
    var clockFile: String?

    func run() async throws {
        guard let (host, port) = Self.parseListen(listen) else {
            throw ValidationError("--listen \"\(listen)\" is not host:port (e.g. 127.0.0.1:0 or [::1]:8080)")
        }
        guard sessionTTL > 0 else { throw ValidationError("--session-ttl must be a positive number of seconds") }
        guard let userVerification = UserVerificationRequirement(rawValue: signInUserVerification) else {
            throw ValidationError("--sign-in-user-verification must be preferred, required or discouraged")
        }
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level \"\(logLevel)\" is not a log level")
        }
        guard let algorithm = IDTokenAlgorithm(rawValue: idTokenAlgorithm) else {
            throw ValidationError("--id-token-alg must be ES256 or RS256")
        }
        let limit = Lifetimes.maxSeconds
        guard (1...limit).contains(accessTokenLifetime) else { throw ValidationError("--access-token-lifetime must be 1 to \(limit) seconds") }
        guard (1...limit).contains(deviceCodeLifetime) else { throw ValidationError("--device-code-lifetime must be 1 to \(limit) seconds") }
        guard (1...3600).contains(deviceInterval) else { throw ValidationError("--device-interval must be 1 to 3600 seconds") }
        var clients: [OAuthClientRegistration] = []
        for argument in oauthClients {
            do { clients.append(try OAuthClientRegistration(argument: argument)) } catch {
                throw ValidationError("--oauth-client: \(error.description)")
            }
        }
        for argument in oauthConfidentialClients {
            do { clients.append(try OAuthClientRegistration(argument: argument, confidential: true)) } catch {
                throw ValidationError("--oauth-confidential-client: \(error.description)")
            }
        }
        func endpoints(_ names: [String], _ option: String) throws -> Set<AdvertisedEndpoint> {
            try Set(names.map { name in
                guard let endpoint = AdvertisedEndpoint(rawValue: name) else {
                    throw ValidationError("\(option) takes revocation_endpoint or device_authorization_endpoint, not \"\(name)\"")
                }
                return endpoint
            })
        }
        let oauth = OAuthConfiguration(clients: clients, accessTokenLifetime: .seconds(accessTokenLifetime),
                                       deviceCodeLifetime: .seconds(deviceCodeLifetime), deviceInterval: deviceInterval,
                                       idTokenAlgorithm: algorithm,
                                       omittedFromDiscovery: try endpoints(omittedFromDiscovery, "--omit-from-discovery"),
                                       omittedFromMetadata: try endpoints(omittedFromMetadata, "--omit-from-metadata"))
        guard let invocation = BIConfiguration.Invocation(rawValue: biInvocation) else {
            throw ValidationError("--bi-invocation must be automatic or manual")
        }
        guard (1...limit).contains(biTransactionLifetime) else { throw ValidationError("--bi-transaction-lifetime must be 1 to \(limit) seconds") }
        let bi = BIConfiguration(invokeURL: biInvokeURL, invocation: invocation, rpId: biRpId, deniedUsers: Set(biDeniedUsers),
                                 transactionLifetime: .seconds(biTransactionLifetime))
        guard (1...limit).contains(idxStateLifetime) else { throw ValidationError("--idx-state-lifetime must be 1 to \(limit) seconds") }
        guard ["preferred", "required"].contains(idxUserVerification) else {
            throw ValidationError("--idx-user-verification must be preferred or required")
        }
        let idx: IDXConfiguration
        do {
            var users = try idxUsers.map { name throws(DevServerError) in try IDXUserRegistration(username: name) }
            if let idxUsersFile { users += try IDXUserRegistration.readUsersFile(idxUsersFile) }
            idx = IDXConfiguration(users: users, stateLifetime: .seconds(idxStateLifetime), rpId: idxRpId, origins: idxOrigins,
                                   userVerificationRequired: idxUserVerification == "required")
        } catch {
            throw ValidationError("--idx-user / --idx-users-file: \(error.description)")
        }
        let configuration = DevServerConfiguration(
            host: host, port: port, appId: appId, rpIds: rpIds.isEmpty ? ["localhost"] : rpIds, origins: origins,
            dataDirectory: dataDirectory, sessionLifetime: .seconds(sessionTTL),
            signInUserVerification: userVerification, clock: clockFile.map(DevServerClock.offset(byFile:)) ?? .system,
            handlesTerminationSignals: true, oauth: oauth, bi: bi, idx: idx,
            logger: DevServer.standardErrorLogger(level: level))
        let server: RunningDevServer
        do { server = try await DevServer.start(configuration) } catch {
            StandardError.writeLine("passkey-devserver: \(error.description)")
            throw ExitCode(78)  // EX_CONFIG
        }
        // The start-up contract: exactly one line on stdout, written at once
        // (unbuffered), because the reader waits for it before sending requests.
        OutputDescriptor.standardOutput.write(server.startupLine + "\n")
        try await server.waitUntilStopped()
    }

    /// `host:port`, `[v6]:port`.
    static func parseListen(_ text: String) -> (String, Int)? {
        let host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else { return nil }
        return (String(host), port)
    }
}
