import FoundationEssentials
import Harness
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// Issue 16: a real `passkey-agent` with an unlocked vault, 1,000 concurrent
/// clients on its socket — half of them misbehaving (slow writers, half
/// lines, never reading, floods over the connection limit) — while the other
/// half keep asking for tokens as `passkey token get` would. The figures:
/// the well-behaved clients' latency and failures before, during and after
/// the soak, and the agent's connections and memory against its baseline.
/// Traffic goes only to that agent's Unix socket; every client stops at the
/// deadline, every socket call has a timeout.
struct SoakBenchmarks {
    var clients: Int
    var seconds: Double
    var programs: Programs
    /// The ways the misbehaving clients misbehave, shared out evenly (default: all four).
    var misbehaviours = SoakClients.Misbehaviour.allCases
    /// Accounts in the vault; each well-behaved client asks for one of them.
    var accounts = 50

    func run() throws(BenchError) -> GroupReport {
        var report = GroupReport(group: "soak", title: "soak (issue 16): \(Report.grouped(clients)) clients, half misbehaving, through passkey-agent")
        // Every client and each of its connections is a descriptor, in the
        // benchmark and in the agent (which inherits this limit).
        let descriptors = Self.raiseDescriptorLimit()
        let agent = try RunningPasskeyAgent(executable: programs.passkeyAgent)
        defer { agent.stop() }
        guard let pid = agent.endpoint.pid else { throw .stepFailed("finding the agent's pid", reason: "not known") }
        let setup = try LineClient.agent(at: agent.endpoint.socketPath)
        try setup.call(Self.line("vault.init", #"{"slot":"fido2","device":{"device":"virtual"}}"#), "vault.init (fido2)")
        for index in 0..<accounts {
            try setup.call(try AgentRequest.line(id: 1, "token.put", SyntheticTokens.PutParams(
                account: SyntheticTokens.account(index), token: SyntheticTokens.document(index, expiresIn: SyntheticTokens.longLife))),
                           "token.put")
        }
        let socketPath = agent.endpoint.socketPath
        let wellBehaved = clients / 2
        let misbehaving = clients - wellBehaved

        // 1. Baseline: the well-behaved clients alone.
        let before = try phase(socketPath, wellBehaved: wellBehaved, misbehaving: 0, seconds: 5)
        let baselineSockets = Self.socketCount(pid)
        let baselineMemory = ProcessMemory.of(pid)

        // 2. The soak.
        let during = try phase(socketPath, wellBehaved: wellBehaved, misbehaving: misbehaving, seconds: seconds)
        let peakDuring = ProcessMemory.of(pid)

        // 3. Recovery: the agent drops what the misbehaving clients left (a
        // stalled writer after 10 s) — wait up to 30 s for its sockets to return.
        let clock = ContinuousClock()
        let soakEnd = clock.now
        var afterSockets = Self.socketCount(pid)
        while let count = afterSockets, let baseline = baselineSockets, count > baseline, clock.now < soakEnd + .seconds(30) {
            usleep(100_000)
            afterSockets = Self.socketCount(pid)
        }
        let recoveredIn = clock.now - soakEnd
        let after = try phase(socketPath, wellBehaved: wellBehaved, misbehaving: 0, seconds: 5)
        let afterMemory = ProcessMemory.of(pid)
        guard kill(pid, 0) == 0 else { throw .stepFailed("the soak", reason: "the agent died") }

        report.figures = [
            .time("soak.before", "token.get, \(wellBehaved) clients alone (baseline)", Samples(nanoseconds: before.outcomes.latencies)),
            .time("soak.during", "token.get during the soak", Samples(nanoseconds: during.outcomes.latencies)),
            .time("soak.after", "token.get after the soak", Samples(nanoseconds: after.outcomes.latencies)),
            .rate("soak.answeredPerSecond", "tokens answered per second during the soak",
                  perSecond: Double(during.outcomes.answered) / seconds),
            .share("soak.failed", "well-behaved requests that failed during the soak",
                   Double(during.outcomes.failures) / Double(max(1, during.outcomes.answered + during.outcomes.failures))),
            .share("soak.refused", "well-behaved connections refused (too_many_connections, retried)",
                   Double(during.outcomes.refusals) / Double(max(1, during.outcomes.answered + during.outcomes.refusals))),
        ]
        if let baselineMemory, let afterMemory {
            report.figures.append(.bytes("soak.rss.before", "agent RSS before the soak", baselineMemory.residentBytes))
            report.figures.append(.bytes("soak.rss.peak", "agent peak RSS (VmHWM), through the soak",
                                         peakDuring?.peakResidentBytes ?? afterMemory.peakResidentBytes))
            report.figures.append(.bytes("soak.rss.after", "agent RSS after the soak", afterMemory.residentBytes))
        }
        let socketsText = "\(baselineSockets.map(String.init) ?? "?") before, \(afterSockets.map(String.init) ?? "?") after"
        report.aims = [
            Aim(name: "well-behaved clients answered during the soak", target: "0 failures",
                measured: "\(during.outcomes.failures) of \(during.outcomes.answered + during.outcomes.failures)",
                met: during.outcomes.failures == 0 && during.outcomes.answered > 0),
            Aim(name: "agent sockets back to baseline", target: "within 30 s", measured: socketsText + " (\(Report.time(recoveredIn.nanoseconds)))",
                met: afterSockets != nil && afterSockets == baselineSockets),
        ]
        if let baselineMemory, let afterMemory {
            let growth = afterMemory.residentBytes / max(1, baselineMemory.residentBytes)
            report.aims.append(Aim(name: "agent RSS back near baseline", target: "≤ 1.5× before", measured: Report.ratio(growth),
                                   met: growth <= 1.5))
        }
        let reasons = (before.outcomes.failureReasons.merging(during.outcomes.failureReasons, uniquingKeysWith: +)
            .merging(after.outcomes.failureReasons, uniquingKeysWith: +))
            .sorted { $0.value > $1.value }.prefix(5).map { "\($0.value)× \($0.key)" }
        report.notes = [
            "\(wellBehaved) well-behaved clients: connect, token.get (minValid 60, answered from the vault, \(accounts) accounts), read, close, then 250–750 ms idle; a too_many_connections answer is retried after 50 ms and the latency runs until the token arrives; a failure is no token within 10 s",
            "\(misbehaving) misbehaving clients, shared evenly among: " + misbehaviours.map(\.rawValue).joined(separator: ", ")
                + " (slow-writer: a request one byte per 100 ms; half-line: then silence; never-reads: token.list in bursts of 64, never reading; flood: 20 connections at once, over and over)",
            "phases: 5 s well-behaved alone, \(seconds) s soak, then up to 30 s for the agent's sockets (/proc/PID/fd) to return to baseline, then 5 s well-behaved alone",
            "answered: \(before.outcomes.answered) before, \(during.outcomes.answered) during, \(after.outcomes.answered) after; refused and retried: \(before.outcomes.refusals), \(during.outcomes.refusals), \(after.outcomes.refusals); failed: \(before.outcomes.failures), \(during.outcomes.failures), \(after.outcomes.failures)",
            "misbehaving connections opened: " + misbehaviours.map { "\($0.rawValue) \(during.opened[$0] ?? 0)" }.joined(separator: ", "),
            "descriptor limit (RLIMIT_NOFILE) of the benchmark and the agent: \(descriptors)",
        ] + (reasons.isEmpty ? [] : ["failures: " + reasons.joined(separator: "; ")])
        return report
    }

    /// What one phase's clients saw.
    struct Phase {
        var outcomes = SoakClients.Outcomes()
        var opened: [SoakClients.Misbehaviour: Int] = [:]
    }

    /// Runs the clients for `seconds` and waits for every one of them to stop.
    private func phase(_ socketPath: String, wellBehaved: Int, misbehaving: Int, seconds: Double) throws(BenchError) -> Phase {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        let result = Locked(Phase())
        var threads: [BackgroundThread] = []
        let kinds = misbehaviours
        for index in 0..<misbehaving {
            let kind = kinds[index % kinds.count]
            threads.append(try Self.clientThread {
                let opened = SoakClients.misbehave(kind, socketPath: socketPath, until: deadline)
                result.withLock { $0.opened[kind, default: 0] += opened }
            })
        }
        for index in 0..<wellBehaved {
            let account = SyntheticTokens.account(index % accounts)
            threads.append(try Self.clientThread {
                let outcomes = SoakClients.wellBehaved(socketPath: socketPath, account: account, until: deadline)
                result.withLock { $0.outcomes.merge(outcomes) }
            })
        }
        threads.forEach { $0.join() }
        return result.withLock { $0 }
    }

    /// A client's thread: a small stack, for a thousand of them.
    private static func clientThread(_ run: @escaping @Sendable () -> Void) throws(BenchError) -> BackgroundThread {
        do { return try BackgroundThread(stackSize: 512 << 10, run) } catch {
            throw .stepFailed("starting a client thread", reason: error.description)
        }
    }

    /// Raises the soft descriptor limit to the hard one (at most 65,536); returns the limit in force.
    private static func raiseDescriptorLimit() -> Int {
        let descriptors = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(descriptors, &limit) == 0 else { return 0 }
        let wanted = min(limit.rlim_max, 65_536)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted
            _ = setrlimit(descriptors, &limit)
        }
        _ = getrlimit(descriptors, &limit)
        return Int(clamping: limit.rlim_cur)  // RLIM_INFINITY is UInt64.max
    }

    /// The agent's open sockets (listening, clients, and its own internals), from /proc/PID/fd.
    static func socketCount(_ pid: pid_t) -> Int? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        return names.filter { name in
            let length = readlink("/proc/\(pid)/fd/\(name)", &buffer, buffer.count - 1)
            guard length > 0 else { return false }
            return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix("socket:")
        }.count
    }

    private static func line(_ method: String, _ params: String) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#.utf8) + [UInt8(ascii: "\n")]
    }
}
