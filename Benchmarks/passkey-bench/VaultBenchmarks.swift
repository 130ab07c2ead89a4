import Harness

#if canImport(Glibc)
import Glibc
#endif

/// Issue 6: the token vault through a real `passkey-agent` — unlocking it
/// with each kind of key slot (PIV: a private pcscd, the vpcd driver and
/// `passkey-vcard`; fido2: the virtual authenticator through libfido2),
/// `token.get` as the vault grows from 10 to 1,000 to 10,000 accounts (the
/// cost must stay flat), one `token.get` that refreshes against a loopback
/// token endpoint, what an account costs on disk, and the agent's memory.
struct VaultBenchmarks {
    var unlocks: Int
    var tokenGets: Int
    var refreshes: Int
    var warmUp: Int
    var programs: Programs
    /// The vault sizes `token.get` is timed at, ascending.
    var accountCounts = [10, 1_000, 10_000]

    private static let cardPIN = "123456"  // passkey-vcard's PIN at first start
    private static let fido2Device = #"{"device":"virtual"}"#

    func run() throws(BenchError) -> GroupReport {
        var report = GroupReport(group: "vault", title: "vault (issue 6): unlock, token.get, size and memory, through passkey-agent")
        // PIV needs pcscd with the vpcd driver; without them the rest still runs, and the report says why.
        var pcsc: PCSCHarness?
        do throws(BenchError) {
            pcsc = try Self.privatePCSC(virtualCard: programs.passkeyVirtualCard)
        } catch {
            report.unavailable.append("unlock through a PIV card: \(error)")
        }
        defer { pcsc?.stop() }
        let agent = try RunningPasskeyAgent(executable: programs.passkeyAgent, extraEnvironment: pcsc?.socketEnvironment ?? [:])
        defer { agent.stop() }
        let client = try LineClient.agent(at: agent.endpoint.socketPath)

        // The vault: PIV first when there is a card (set up as `passkey card setup` does), then a fido2 slot.
        let reader = pcsc?.readerName(slot: 0) ?? ""
        if pcsc != nil {
            try waitForCard(in: reader, client: client)
            try client.call(try AgentRequest.line(id: 1, "card.setup", CardSetup(reader: reader, pin: Self.cardPIN)), "card.setup")
            try client.call(Self.line("vault.init", #"{"slot":"piv","reader":"\#(reader)","pin":"\#(Self.cardPIN)"}"#), "vault.init (piv)")
            try client.call(Self.line("vault.addSlot", #"{"slot":"fido2","device":\#(Self.fido2Device)}"#), "vault.addSlot (fido2)")
        } else {
            try client.call(Self.line("vault.init", #"{"slot":"fido2","device":\#(Self.fido2Device)}"#), "vault.init (fido2)")
        }

        // 1. Unlock: lock (untimed), then one timed agent.unlock, over and over.
        let lock = AgentRequest.line(id: 1, "agent.lock")
        func unlockSamples(_ params: String, _ step: String) throws(BenchError) -> Samples {
            let unlock = Self.line("agent.unlock", params)
            let warmUps = min(warmUp, 2)
            var samples = Samples(nanoseconds: [])
            let clock = ContinuousClock()
            for index in 0..<(warmUps + unlocks) {
                try client.call(lock, "agent.lock")
                let start = clock.now
                try client.call(unlock, step)
                if index >= warmUps { samples.nanoseconds.append((clock.now - start).nanoseconds) }
            }
            return samples
        }
        if pcsc != nil {
            report.figures.append(.time("unlock.piv", "agent.unlock, PIV (VERIFY + ECDH via pcscd)",
                                        try unlockSamples(#"{"slot":"piv","reader":"\#(reader)","pin":"\#(Self.cardPIN)"}"#, "agent.unlock (piv)")))
        }
        report.figures.append(.time("unlock.fido2", "agent.unlock, fido2 (hmac-secret via libfido2)",
                                    try unlockSamples(#"{"slot":"fido2","device":\#(Self.fido2Device)}"#, "agent.unlock (fido2)")))

        // 2. token.get from the vault (no refresh) at each size; the puts that grow it are timed too.
        // docs/VAULT.md: $XDG_DATA_HOME/passkey-agent/vault (the agent was started with its own XDG_DATA_HOME).
        let data = (agent.endpoint.environment["XDG_DATA_HOME"] ?? "") + "/passkey-agent/vault"
        guard DiskUsage.of(data).files > 0 else {
            throw .stepFailed("finding the vault", reason: "no files under \(data): the agent keeps its vault elsewhere")
        }
        var stored = 0
        var puts = Samples(nanoseconds: [])
        var medians: [Int: Int64] = [:]
        var smallVault: (disk: DiskUsage, memory: ProcessMemory?)?
        for count in accountCounts {
            let lines = try (stored..<count).map { (index) throws(BenchError) -> [UInt8] in
                try AgentRequest.line(id: 1, "token.put", SyntheticTokens.PutParams(
                    account: SyntheticTokens.account(index),
                    token: SyntheticTokens.document(index, expiresIn: SyntheticTokens.longLife)))
            }
            let clock = ContinuousClock()
            for line in lines {
                let start = clock.now
                try client.call(line, "token.put")
                puts.nanoseconds.append((clock.now - start).nanoseconds)
            }
            stored = count
            if smallVault == nil { smallVault = (DiskUsage.of(data), agent.endpoint.pid.flatMap(ProcessMemory.of)) }

            // Requests for accounts picked at random, made before the timed loop.
            var generator = SystemRandomNumberGenerator()
            let gets = try (0..<tokenGets).map { (_) throws(BenchError) -> [UInt8] in
                try AgentRequest.line(id: 1, "token.get", SyntheticTokens.GetParams(
                    account: SyntheticTokens.account(Int.random(in: 0..<count, using: &generator)), minValid: 60))
            }
            let check = try client.answerSkippingProgress(gets[0])
            guard check.contains(#""accessToken""#), check.contains(#""refreshed":false"#) else {
                throw .stepFailed("token.get", reason: "expected a stored token without a refresh, got: \(check.prefix(120))…")
            }
            var next = 0
            let samples = try BenchError.during("token.get at \(count) accounts") {
                try Measurement.sample(warmUp: min(warmUp, tokenGets), iterations: tokenGets) {
                    _ = try client.roundTrip(gets[next % gets.count])
                    next += 1
                }
            }
            medians[count] = samples.summary?.median
            report.figures.append(.time("tokenGet.\(count)", "token.get, \(Report.grouped(count)) accounts", samples))
        }
        report.figures.append(.time("tokenPut", "token.put (atomic write: temp, fsync, rename, dir fsync)", puts))

        // 3. One refresh per token.get: the endpoint's tokens live 1 s, so minValid 60 always refreshes.
        let endpoint = try BenchError.during("starting the token endpoint") { try TokenEndpoint(refreshToken: "RT-1", expiresIn: 1) }
        defer { endpoint.stop() }
        try client.call(try AgentRequest.line(id: 1, "token.put", SyntheticTokens.PutParams(
            account: "refreshing", token: SyntheticTokens.document(0, expiresIn: 0, endpoint: endpoint.url, refreshToken: "RT-1"))),
                        "token.put (refreshing account)")
        let refreshRequest = try AgentRequest.line(id: 1, "token.get", SyntheticTokens.GetParams(account: "refreshing", minValid: 60))
        let refresh = try BenchError.during("token.get with a refresh") {
            try Measurement.sample(warmUp: min(warmUp, 3), iterations: refreshes) {
                let answer = try client.answerSkippingProgress(refreshRequest)
                guard answer.contains(#""refreshed":true"#) else {
                    throw BenchError.stepFailed("token.get with a refresh", reason: "no refresh: \(answer.prefix(160))")
                }
            }
        }
        guard endpoint.refused == 0, endpoint.refreshes == min(warmUp, 3) + refreshes else {
            throw .stepFailed("token.get with a refresh", reason: "the endpoint issued \(endpoint.refreshes) and refused \(endpoint.refused) refreshes")
        }
        report.figures.append(.time("tokenGet.refresh", "token.get with a refresh (loopback HTTP, rotated RT saved)", refresh))

        // 4. Disk and memory, with every account stored.
        let largest = accountCounts.last ?? 0
        let full = DiskUsage.of(data)
        if let smallVault, largest > accountCounts[0] {
            let added = Double(largest - accountCounts[0])
            report.figures.append(.bytes("vault.fileBytesPerAccount", "vault size per account (file bytes)",
                                         (full.fileBytes - smallVault.disk.fileBytes) / added))
            report.figures.append(.bytes("vault.diskPerAccount", "vault size per account (blocks allocated)",
                                         (full.allocatedBytes - smallVault.disk.allocatedBytes) / added))
        }
        report.figures.append(.bytes("vault.disk", "vault on disk, \(Report.grouped(largest)) accounts", full.allocatedBytes))
        if let pid = agent.endpoint.pid, let memory = ProcessMemory.of(pid) {
            if let small = smallVault?.memory {
                report.figures.append(.bytes("agent.rss.\(accountCounts[0])", "agent RSS, \(accountCounts[0]) accounts", small.residentBytes))
            }
            report.figures.append(.bytes("agent.rss.\(largest)", "agent RSS, \(Report.grouped(largest)) accounts", memory.residentBytes))
            report.figures.append(.bytes("agent.peakRSS", "agent peak RSS (VmHWM) over the run", memory.peakResidentBytes))
        }

        if let first = accountCounts.first, let small = medians[first], let large = medians[largest] {
            let ratio = Double(large) / Double(max(1, small))
            report.figures.append(.ratio("tokenGet.growth", "token.get p50 at \(Report.grouped(largest)) / at \(first)", ratio))
            report.aims.append(Aim(name: "token.get stays flat", target: "p50 at \(Report.grouped(largest)) ≤ 1.5× p50 at \(first)",
                                   measured: Report.ratio(ratio), met: ratio <= 1.5))
        }
        report.notes = [
            "unlock: \(unlocks) unlocks per slot after \(min(warmUp, 2)) warm-up, each after an untimed agent.lock, on one connection; the PIN travels in the request (no prompt)",
            pcsc != nil ? "PIV: a private pcscd --foreground with the vpcd driver, passkey-vcard in \"\(reader)\", 9D key made by card.setup" : "PIV: not measured (see below)",
            "fido2: the virtual authenticator in the agent (no PIN, user presence approved), one assertion with hmac-secret per unlock",
            "token.get: \(tokenGets) requests per size for accounts picked at random, minValid 60, access tokens valid for years (no refresh); token sets shaped like an OpenID provider's (JWT access and ID tokens, ~2 KiB of JSON)",
            "token.get with a refresh: \(refreshes) requests, each a refresh_token grant over a new loopback TCP connection, the rotated refresh token written to the vault before the answer",
            "size per account: the growth from \(accountCounts[0]) to \(Report.grouped(largest)) accounts divided by the accounts added; RSS from /proc/PID/status",
        ]
        return report
    }

    /// pcscd polls vpcd for the card's ATR (every 400 ms), so a card that has
    /// just connected is not present at once: asks `card.list` until it is (at most 15 s).
    private func waitForCard(in reader: String, client: LineClient) throws(BenchError) {
        struct Listing: Decodable {
            struct Reader: Decodable {
                var name: String
                var cardPresent: Bool
            }
            var readers: [Reader]
        }
        let request = AgentRequest.line(id: 1, "card.list")
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(15)
        while clock.now < deadline {
            let listing = try client.call(request, "card.list", as: Listing.self)
            if listing.readers.contains(where: { $0.name == reader && $0.cardPresent }) { return }
            usleep(100_000)
        }
        throw .stepFailed("waiting for passkey-vcard", reason: "pcscd saw no card in \"\(reader)\" within 15 s")
    }

    /// A private pcscd with the vpcd driver and one `passkey-vcard` in its
    /// first reader (the harness's `PCSCHarness`): the real PC/SC stack the
    /// PIV slot goes through, without touching the system's pcscd.
    private static func privatePCSC(virtualCard: String) throws(BenchError) -> PCSCHarness {
        let virtualCard = try Programs.built(virtualCard)
        return try BenchError.during("starting a private pcscd with passkey-vcard") {
            let pcsc = try PCSCHarness(virtualCard: virtualCard)
            do {
                // Not --verbose: the card's log of every APDU would be in the unlock's time.
                _ = try pcsc.startCard(slot: 0, verbose: false)
            } catch {
                pcsc.stop()
                throw error
            }
            return pcsc
        }
    }

    private struct CardSetup: Encodable {
        var reader: String
        var pin: String
        var force = false
    }

    /// A request line whose params are already JSON text.
    private static func line(_ method: String, _ params: String) -> [UInt8] {
        Array(#"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#.utf8) + [UInt8(ascii: "\n")]
    }
}
