import DevServer
import DevServerBase
import FoundationEssentials
import Harness
import HTTPTransport
import OAuthDevServer
import OpenID
import Settings
import URLPolicy

#if canImport(Glibc)
import Glibc
#endif

/// Issue 27: `passkey token get` beside the C peer that does the same job,
/// oidc-agent's `oidc-token ACCOUNT` — both agents holding a valid access
/// token for the same user at the same OpenID provider (the devserver in
/// this process, with a confidential client, as oidc-agent insists on a
/// secret). Whole processes take turns with `ssh-add -l` and `/bin/true`
/// (`TakingTurns`); then the agents alone, through the same client code: one
/// request on a new connection each (oidc-agent answers one request per
/// connection), ours also on a kept connection.
struct PeerBenchmarks {
    var runs: Int
    var warmUp: Int
    /// Agent-side requests of each kind.
    var requests: Int
    var programs: Programs

    static let account = "peer"
    static let clientId = "oidc-peer"
    static let scope = "openid offline_access"
    /// Issue 27's aim for both ratios.
    static let aim = 1.0

    func run() throws(BenchError) -> GroupReport {
        var report = GroupReport(group: "peers", title: "peers (issue 27): passkey beside oidc-agent, the C peer")
        let oidcToken = try programs.required("oidc-token")
        let registration = try BenchError.during("registering the peers' client") {
            try OAuthClientRegistration(argument: "\(Self.clientId)=http://127.0.0.1/callback", confidential: true)
        }
        let secret = registration.secret ?? ""
        let server = try BenchCommand.waiting { () async throws(BenchError) -> RunningDevServer in
            try await BenchError.awaiting("starting the devserver") {
                try await DevServer.start(DevServerConfiguration(
                    rpIds: ["localhost"], origins: ["https://localhost"],
                    oauth: OAuthConfiguration(clients: [registration], accessTokenLifetime: .seconds(86_400)),
                    logger: DevServer.standardErrorLogger(level: .error)))
            }
        }
        defer { try? BenchCommand.waiting { () async throws(BenchError) in await server.shutdown() } }
        let provider = ProviderLogin(transport: HTTPTransport(), issuer: server.issuer, clientId: Self.clientId, secret: secret)
        // Two sign-ins of the same user: each agent holds its own refresh family.
        let ours = try BenchCommand.waiting { () async throws(BenchError) in try await provider.signIn() }
        let theirs = try BenchCommand.waiting { () async throws(BenchError) in try await provider.signIn() }

        let agent = try RunningPasskeyAgent(executable: programs.passkeyAgent)
        defer { agent.stop() }
        let client = try LineClient.agent(at: agent.endpoint.socketPath)
        try client.call(Array(#"{"jsonrpc":"2.0","id":1,"method":"vault.init","params":{"slot":"fido2","device":{"device":"virtual"}}}"#.utf8)
                        + [UInt8(ascii: "\n")], "vault.init (fido2)")
        try client.call(try AgentRequest.line(id: 2, "token.put", SyntheticTokens.PutParams(account: Self.account, token: SyntheticTokens.Document(
            access_token: ours.access_token, expires_in: ours.expires_in, refresh_token: ours.refresh_token, id_token: ours.id_token,
            scope: Self.scope, issuer: server.issuer, client_id: Self.clientId, token_endpoint: server.issuer + "/v1/token"))), "token.put")

        let oidcAgent = try RunningOIDCAgent(oidcAgent: try programs.required("oidc-agent"), oidcGen: try programs.required("oidc-gen"),
                                             account: .init(name: Self.account, issuer: server.issuer, clientId: Self.clientId,
                                                            clientSecret: secret, refreshToken: theirs.refresh_token, scope: Self.scope))
        defer { oidcAgent.stop() }
        let sshAgent = try RunningSSHAgent(sshAgent: try programs.required("ssh-agent"), sshAdd: try programs.required("ssh-add"),
                                           sshKeygen: try programs.required("ssh-keygen"))
        defer { sshAgent.stop() }

        // 1. Whole processes, taking turns: `passkey` as installed, and as the linker left it.
        let installed = try InstalledCopy(of: programs.passkey, install: try programs.required("install"))
        defer { installed.remove() }
        var commands = [
            TimedCommand(key: "peers.floor", label: "spawn + exit of /bin/true (the floor)",
                         path: try programs.required("true"), arguments: [], environment: agent.endpoint.environment),
            TimedCommand(key: "peers.passkeyTokenGet", label: "passkey token get ACCOUNT (installed copy; agent's memory)",
                         path: installed.path, arguments: ["token", "get", Self.account], environment: agent.endpoint.environment),
            TimedCommand(key: "peers.passkeyTokenGet.buildOutput", label: "  the same, the build's own file (pages read in by exec)",
                         path: programs.passkey, arguments: ["token", "get", Self.account], environment: agent.endpoint.environment),
            TimedCommand(key: "peers.oidcToken", label: "oidc-token ACCOUNT (oidc-agent 4, cached token)",
                         path: oidcToken, arguments: [Self.account], environment: oidcAgent.environment),
            TimedCommand(key: "peers.sshAddList", label: "ssh-add -l (ssh-agent, 1 key)",
                         path: try programs.required("ssh-add"), arguments: ["-l"], environment: sshAgent.environment),
        ]
        try TakingTurns.run(&commands, runs: runs, warmUp: warmUp)
        report.figures += commands.flatMap(\.figures)
        func median(_ key: String, cpu: Bool = false) -> Double { commands.first { $0.key == key }?.median(cpu: cpu) ?? 0 }
        let processRatio = median("peers.passkeyTokenGet") / max(1, median("peers.oidcToken"))
        report.figures.append(.ratio("ratio.peers.tokenGet", "passkey token get / oidc-token (wall)", processRatio))
        report.figures.append(.ratio("ratio.peers.tokenGetCPU", "passkey token get / oidc-token (CPU)",
                                     median("peers.passkeyTokenGet", cpu: true) / max(1, median("peers.oidcToken", cpu: true))))
        report.figures.append(.ratio("ratio.peers.tokenGet.buildOutput", "  the build's own file / oidc-token (wall)",
                                     median("peers.passkeyTokenGet.buildOutput") / max(1, median("peers.oidcToken"))))
        report.figures.append(.ratio("ratio.peers.tokenGetSSH", "passkey token get / ssh-add -l (wall)",
                                     median("peers.passkeyTokenGet") / max(1, median("peers.sshAddList"))))
        report.aims.append(Aim(name: "passkey token get / oidc-token", target: "≤ \(Self.aim)×", measured: Report.ratio(processRatio),
                               met: processRatio <= Self.aim))

        // 2. The agents alone: the same client, one request per new connection, taking turns.
        let ourRequest = try AgentRequest.line(id: 1, "token.get", SyntheticTokens.GetParams(account: Self.account, minValid: 60))
        let theirRequest = Array(#"{"request":"access_token","account":"\#(Self.account)","min_valid_period":60}"#.utf8)
        var ourFresh: [Int64] = [], theirFresh: [Int64] = [], ourKept: [Int64] = []
        let kept = try LineClient.agent(at: agent.endpoint.socketPath)
        for round in 0..<(warmUp + requests) {
            let our = try Self.request(ourRequest, on: agent.endpoint.socketPath, until: UInt8(ascii: "\n"), expecting: "\"accessToken\"")
            let their = try Self.request(theirRequest, on: oidcAgent.socketPath, until: UInt8(ascii: "}"), expecting: "\"success\"")
            let keptTime = try Self.request(ourRequest, on: kept, until: UInt8(ascii: "\n"), expecting: "\"accessToken\"")
            guard round >= warmUp else { continue }
            ourFresh.append(our)
            theirFresh.append(their)
            ourKept.append(keptTime)
        }
        report.figures.append(.time("peers.agent.tokenGet.fresh", "our token.get, new connection each", Samples(nanoseconds: ourFresh)))
        report.figures.append(.time("peers.agent.oidcAccessToken.fresh", "oidc-agent's access_token, new connection each",
                                    Samples(nanoseconds: theirFresh)))
        report.figures.append(.time("peers.agent.tokenGet.kept", "our token.get, one kept connection", Samples(nanoseconds: ourKept)))
        let agentRatio = Double(Samples(nanoseconds: ourFresh).summary?.median ?? 0)
            / max(1, Double(Samples(nanoseconds: theirFresh).summary?.median ?? 0))
        report.figures.append(.ratio("ratio.peers.agent", "our token.get / oidc-agent's access_token (new connection each)", agentRatio))
        report.aims.append(Aim(name: "token.get / oidc-agent access_token (agent side)", target: "≤ \(Self.aim)×",
                               measured: Report.ratio(agentRatio), met: agentRatio <= Self.aim))
        report.notes = [
            "\(runs) runs of each command, taking turns, after \(warmUp) warm-up rounds; output to /dev/null",
            "installed copy: `install -m 0755`, as scripts/install does; the build's own file was written by the linker, and how a file's pages came into the page cache changes what exec costs (docs/BENCHMARKS.md, \"peers\")",
            "\(requests) agent-side requests of each kind, taking turns: connect, one request, read the answer to its last byte",
            "both agents hold an access token of the devserver in this process, valid for a day; neither refreshes",
        ]
        return report
    }

    /// One request on a new connection: connect, send, read until the
    /// answer ends with `end`, close. Its time in nanoseconds.
    static func request(_ bytes: [UInt8], on path: String, until end: UInt8, expecting marker: String) throws(BenchError) -> Int64 {
        let clock = ContinuousClock()
        let start = clock.now
        let client = try BenchError.during("connecting to \(path)") { try LineClient(path: path) }
        try exchange(bytes, client, until: end, expecting: marker)
        return (clock.now - start).nanoseconds
    }

    /// One request on a kept connection.
    static func request(_ bytes: [UInt8], on client: LineClient, until end: UInt8, expecting marker: String) throws(BenchError) -> Int64 {
        let clock = ContinuousClock()
        let start = clock.now
        try exchange(bytes, client, until: end, expecting: marker)
        return (clock.now - start).nanoseconds
    }

    /// The same client code for both agents: send, then recv(2) until the
    /// last byte received is `end`; the answer must contain `marker`.
    private static func exchange(_ bytes: [UInt8], _ client: LineClient, until end: UInt8, expecting marker: String) throws(BenchError) {
        try BenchError.during("sending a request") { try client.send(bytes) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while answer.last != end {
            let count = buffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw .stepFailed("reading an answer", reason: count == 0 ? "the agent closed the connection" : "recv failed") }
            answer += buffer[0..<count]
        }
        guard String(decoding: answer, as: UTF8.self).contains(marker) else {
            throw .stepFailed("an agent's answer", reason: "no \(marker) in \(String(decoding: answer.prefix(200), as: UTF8.self))")
        }
    }
}

/// A sign-in at the devserver as the confidential client, played over
/// HTTP: the consent form posted for alice, the code redeemed with the
/// client's secret (client_secret_basic).
struct ProviderLogin: Sendable {
    let transport: HTTPTransport
    let issuer: String
    let clientId: String
    let secret: String

    struct Tokens: Decodable, Sendable {
        var access_token: String
        var expires_in: Int
        var refresh_token: String
        var id_token: String?
    }

    func signIn() async throws(BenchError) -> Tokens {
        let pkce = PKCE()
        let redirect = "http://127.0.0.1:4242/callback"
        let query = [("response_type", "code"), ("client_id", clientId), ("redirect_uri", redirect), ("scope", PeerBenchmarks.scope),
                     ("state", PKCE().verifier), ("nonce", PKCE().verifier), ("code_challenge", pkce.challenge),
                     ("code_challenge_method", "S256")]
            .map { "\($0.0)=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
        let consent = try await BenchError.awaiting("the consent form") {
            try await transport.postForm(issuer + "/v1/authorize?" + query, [("user", "alice"), ("action", "allow")])
        }
        guard consent.status == 302, let location = consent.header("Location"),
              let code = URLComponents(string: location)?.queryItems?.first(where: { $0.name == "code" })?.value else {
            throw .stepFailed("the consent form", reason: "HTTP \(consent.status), no code in the redirect")
        }
        let basic = "Basic " + Data("\(clientId):\(secret)".utf8).base64EncodedString()
        let answer = try await BenchError.awaiting("POST /v1/token") {
            try await transport.postForm(issuer + "/v1/token", [("grant_type", "authorization_code"), ("code", code),
                                                                ("redirect_uri", redirect), ("code_verifier", pkce.verifier)],
                                         headers: [("Authorization", basic)])
        }
        guard answer.status == 200 else { throw .stepFailed("POST /v1/token", reason: "HTTP \(answer.status)") }
        return try BenchError.during("reading the token response") { try JSONDecoder().decode(Tokens.self, from: Data(answer.body)) }
    }
}

/// `passkey` copied the way scripts/install installs it (`install -m 0755`)
/// into a temporary directory: the program a user runs. The copy's pages are
/// in the page cache as that write left them; the linker's output file, whose
/// pages the kernel reads in on exec's page faults, starts about 0.3 ms slower
/// on this machine (docs/BENCHMARKS.md, "peers").
struct InstalledCopy {
    let directory: String
    let path: String

    init(of program: String, install: String) throws(BenchError) {
        let program = try Programs.built(program)
        directory = try BenchError.during("making a directory for the installed copy") {
            try TemporaryDirectory.make(prefix: "passkey-bench-installed")
        }
        path = directory + "/passkey"
        let status = try BenchError.during("installing a copy of passkey") {
            try ProcessResult.run(install, ["-m", "0755", program, path], standardInput: nil, environment: ProcessEnvironment.current,
                                  scratch: directory, timeout: 30).status
        }
        guard status == 0 else {
            TemporaryDirectory.remove(directory)
            throw .stepFailed("installing a copy of passkey", reason: "install exited \(status)")
        }
    }

    func remove() { TemporaryDirectory.remove(directory) }
}
