import ArgumentParser
import Dispatch
import StandardError
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// `passkey-bench`: the figures issues 2, 3, 4, 6, 11 and 15 ask for, in one run.
/// docs/BENCHMARKS.md says what each figure means and records the results.
struct BenchCommand: ParsableCommand {
    enum Group: String, CaseIterable, ExpressibleByArgument {
        case authenticator, ceremony, agent, cli, peers, vault, login, soak

        /// What a run without --group measures: the soak runs only when asked for.
        static let byDefault = allCases.filter { $0 != .soak }
    }

    static let configuration = CommandConfiguration(
        commandName: "passkey-bench",
        abstract: "Measure passkey-agent: libfido2, ceremonies, the agent's socket, CLI start-up, the vault and logins.",
        discussion: """
        Run it from a release build: scripts/bench (swift build -c release --product passkey-bench \
        && .build/release/passkey-bench).

        Groups: `authenticator` (makeCredential and getAssertion through libfido2 on the virtual \
        authenticator, beside bare P-256; getAssertion over PC/SC to passkey-vcard's FIDO2 applet \
        through a private pcscd and vpcd, beside the same floor and a bare APDU round trip), `ceremony` (passwordless.dev register and sign-in against \
        the devserver on loopback, split into HTTP and authenticator time, beside their floors), \
        `agent` (agent.status round trips and throughput against a real passkey-agent), `cli` \
        (`passkey status` and `passkey token get` from an unlocked vault as whole processes, taking \
        turns with `ssh-add -l`), `peers` (`passkey token get` beside oidc-agent's `oidc-token`, the C \
        peer, both holding a token of the devserver in this process, with `ssh-add -l` and `/bin/true`; then \
        our `token.get` beside oidc-agent's `access_token` request, one per new connection, through the same \
        client), `vault` (unlock with a PIV card \
        through pcscd + vpcd + passkey-vcard and with the virtual authenticator's hmac-secret, \
        token.get at 10, 1,000 and 10,000 accounts, size per account, agent memory), `login` (a whole \
        browser-flow login through a real passkey-agent — login.begin, the browser played over HTTP, \
        login.wait until the tokens are in the vault — against the devserver's authorization server \
        on loopback, taking turns with its floor: the same HTTP round trips and one ID-token check \
        done bare), `soak` (only \
        when asked for: --soak-clients clients on the agent's socket for --soak-seconds, half of them \
        misbehaving, while the others keep asking for tokens; their latency and failures, and the \
        agent's sockets and memory against its baseline).

        Prints a table (or --json); docs/BENCHMARKS.md explains each figure. Exits 0 when every \
        group ran, whether or not the aims were met; a part that cannot run here (the PIV unlock \
        without pcscd and the vpcd driver) is listed as not available, with the reason.
        """)

    @Option(name: .long, help: "Run only this group (repeatable): authenticator, ceremony, agent, cli, peers, vault, login, soak.")
    var group: [Group] = []

    @Option(name: .long, help: "Timed iterations per authenticator operation and per ceremony floor.")
    var iterations = 2_000

    @Option(name: .long, help: "Register and sign-in ceremonies of each kind (ceremony group).")
    var ceremonies = 200

    @Option(name: .long, help: "Unlocks per key slot (vault group).")
    var unlocks = 20

    @Option(name: .long, help: "token.get requests at each vault size (vault group).")
    var tokenGets = 2_000

    @Option(name: .long, help: "token.get requests that each refresh (vault group).")
    var refreshes = 50

    @Option(name: .long, help: "Browser-flow logins through the agent, and as many floors (login group).")
    var logins = 30

    @Option(name: .long, help: "agent.status round trips on one connection.")
    var requests = 20_000

    @Option(name: .long, help: "Concurrent connections for the throughput run.")
    var connections = 32

    @Option(name: .long, help: "Seconds the throughput run lasts (after 0.5 s of warm-up).")
    var seconds = 3.0

    @Option(name: .long, help: "Concurrent clients in the soak, half of them misbehaving (soak group).")
    var soakClients = 1_000

    @Option(name: .long, help: "Seconds the soak lasts (soak group).")
    var soakSeconds = 30.0

    @Option(name: .long, help: "Only this misbehaviour in the soak (repeatable): slow-writer, half-line, never-reads, flood.")
    var soakMisbehaviour: [SoakClients.Misbehaviour] = []

    @Option(name: .long, help: "Runs of each whole-process command.")
    var runs = 50

    @Option(name: .long, help: "Untimed iterations before each timed series; slow series take fewer (see docs/BENCHMARKS.md).")
    var warmUp = 200

    @Option(name: .long, help: ArgumentHelp("Where passkey, passkey-agent and passkey-vcard are (default: beside this program).",
                                            valueName: "directory"))
    var programs: String?

    @Option(name: .long, help: ArgumentHelp("Measure the agent already listening here instead of starting one (e.g. under perf record).",
                                            valueName: "path"))
    var agentSocket: String?

    @Option(name: .long, help: ArgumentHelp("Also time this build of passkey in the cli group (repeatable), e.g. static=/tmp/passkey.",
                                            valueName: "name=path"))
    var cliVariant: [String] = []

    @Flag(name: .long, help: "Print the results as JSON.")
    var json = false

    func validate() throws {
        guard iterations >= 1, requests >= 1, runs >= 1, ceremonies >= 1, unlocks >= 1, tokenGets >= 1, refreshes >= 1,
              logins >= 1, warmUp >= 0 else {
            throw ValidationError("--iterations, --requests, --runs, --ceremonies, --unlocks, --token-gets, --refreshes and --logins must be at least 1, --warm-up at least 0")
        }
        guard (1...1000).contains(connections) else { throw ValidationError("--connections must be 1…1000") }
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be more than 0 and at most 600") }
        guard (2...4_000).contains(soakClients) else { throw ValidationError("--soak-clients must be 2…4000") }
        guard soakSeconds > 0, soakSeconds <= 600 else { throw ValidationError("--soak-seconds must be more than 0 and at most 600") }
        for variant in cliVariant where Self.parseVariant(variant) == nil {
            throw ValidationError("--cli-variant takes NAME=PATH, not \"\(variant)\"")
        }
    }

    private static func parseVariant(_ text: String) -> CLIStartupBenchmarks.Variant? {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
        let path = String(text[text.index(after: equals)...])
        return path.isEmpty ? nil : CLIStartupBenchmarks.Variant(name: String(text[..<equals]), path: path)
    }

    func run() throws {
        let groups = Set(group.isEmpty ? Group.byDefault : group)
        do throws(BenchError) {
            let report = try measure(groups)
            print(json ? report.json() : report.table(), terminator: json ? "\n" : "")
        } catch {
            var standardError = StandardErrorStream()
            print("passkey-bench: \(error)", to: &standardError)
            throw ExitCode(1)
        }
    }

    private func measure(_ groups: Set<Group>) throws(BenchError) -> Report {
        var results: [GroupReport] = []
        progress("passkey-bench: measuring \(Group.allCases.filter(groups.contains).map(\.rawValue).joined(separator: ", "))…")
        if groups.contains(.authenticator) {
            results.append(try AuthenticatorBenchmarks(iterations: iterations, warmUp: warmUp,
                                                       programs: Programs(directory: programs)).run())
        }
        if groups.contains(.ceremony) {
            let ceremony = CeremonyBenchmarks(ceremonies: ceremonies, warmUp: warmUp, floorIterations: iterations)
            results.append(try Self.waiting { () async throws(BenchError) -> GroupReport in try await ceremony.run() })
        }
        if groups.contains(.agent) || groups.contains(.cli) {
            let locations = Programs(directory: programs)
            var started: RunningPasskeyAgent?
            let agent: AgentEndpoint
            if let agentSocket {
                agent = try AgentEndpoint.existing(socketPath: agentSocket)
            } else {
                let running = try RunningPasskeyAgent(executable: locations.passkeyAgent)
                started = running
                agent = running.endpoint
            }
            defer { started?.stop() }
            if groups.contains(.agent) {
                results.append(try AgentSocketBenchmarks(requests: requests, warmUp: warmUp, connections: connections,
                                                         throughputSeconds: seconds, epollFloor: locations.epollFloor).run(agent: agent))
            }
            if groups.contains(.cli) {
                results.append(try CLIStartupBenchmarks(runs: runs, warmUp: max(3, warmUp / 20), programs: locations,
                                                        variants: cliVariant.compactMap(Self.parseVariant), ownAgent: started != nil)
                    .run(agent: agent))
            }
        }
        if groups.contains(.peers) {
            results.append(try PeerBenchmarks(runs: runs, warmUp: max(3, warmUp / 20), requests: min(requests, 2_000),
                                              programs: Programs(directory: programs)).run())
        }
        if groups.contains(.vault) {
            results.append(try VaultBenchmarks(unlocks: unlocks, tokenGets: tokenGets, refreshes: refreshes, warmUp: warmUp,
                                               programs: Programs(directory: programs)).run())
        }
        if groups.contains(.login) {
            results.append(try LoginBenchmarks(logins: logins, warmUps: min(warmUp, 5), programs: Programs(directory: programs)).run())
        }
        if groups.contains(.soak) {
            results.append(try SoakBenchmarks(clients: soakClients, seconds: soakSeconds, programs: Programs(directory: programs),
                                              misbehaviours: soakMisbehaviour.isEmpty ? SoakClients.Misbehaviour.allCases : soakMisbehaviour)
                .run())
        }
        return Report(groups: results)
    }

    /// Runs async work (the in-process devserver's group) from this
    /// synchronous command: a task does it while the main thread waits.
    static func waiting<T: Sendable>(_ body: @escaping @Sendable () async throws(BenchError) -> T) throws(BenchError) -> T {
        let outcome = Locked<Result<T, BenchError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, BenchError>
            do throws(BenchError) { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// A line on stderr, so `--json > file` stays clean while the run shows it is alive.
    private func progress(_ text: String) {
        var standardError = StandardErrorStream()
        print(text, to: &standardError)
    }
}

extension SoakClients.Misbehaviour: ExpressibleByArgument {}

/// `print(…, to:)` for standard error.
struct StandardErrorStream: TextOutputStream {
    mutating func write(_ string: String) { StandardError.write(string) }
}

BenchCommand.main()
