import Harness

#if canImport(Glibc)
import Glibc
#endif

/// Issue 4: how fast a running `passkey-agent` answers `agent.status` over
/// its socket — one client asking in a loop, a fresh connection per request
/// (what each `passkey` invocation does), and 32 clients at once.
struct AgentSocketBenchmarks {
    var requests: Int
    var warmUp: Int
    var connections: Int
    var throughputSeconds: Double
    /// `passkey-bench-epoll`, the floor the round trip is compared with.
    var epollFloor: String

    /// Issue 27's aim: agent.status's round trip p50 within this many times a minimal C epoll server's.
    static let floorAim = 3.0

    static let statusRequest = AgentRequest.line(id: 1, "agent.status")

    func run(agent: AgentEndpoint) throws(BenchError) -> GroupReport {
        var report = GroupReport(group: "agent", title: "agent (issue 4): agent.status over the Unix socket")

        // One persistent connection, one request in flight: the round trip.
        let client = try LineClient.agent(at: agent.socketPath)
        let first = try client.roundTripText(Self.statusRequest)
        guard first.contains(#""result""#), first.contains(#""agentRunning":true"#) else {
            throw .stepFailed("agent.status", reason: "unexpected answer: \(first.prefix(200))")
        }
        for _ in 0..<warmUp { _ = try client.roundTrip(Self.statusRequest) }
        let cpuBefore = agent.pid.flatMap(ProcessCPUTime.of)
        let roundTrip = try BenchError.during("agent.status round trips") {
            try Measurement.sample(warmUp: 0, iterations: requests) { _ = try client.roundTrip(Self.statusRequest) }
        }
        let cpuAfter = agent.pid.flatMap(ProcessCPUTime.of)

        // The same round trip with a minimal C epoll server answering the agent's own answer line.
        let floorServer = try PrivateDaemon(name: "passkey-bench-epoll", executable: try Programs.built(epollFloor),
                                            socketName: "floor.sock") { _, socketPath in ([socketPath, first], [:]) }
        defer { floorServer.stop() }
        let floorClient = try LineClient.agent(at: floorServer.socketPath)
        let floor = try BenchError.during("round trips with the C epoll server") {
            try Measurement.sample(warmUp: warmUp, iterations: requests) { _ = try floorClient.roundTrip(Self.statusRequest) }
        }

        // connect → request → answer → close, as one `passkey status` does it.
        let fresh = try BenchError.during("agent.status on fresh connections") {
            try Measurement.sample(warmUp: min(warmUp, 200), iterations: max(1, requests / 10)) {
                _ = try LineClient.agent(at: agent.socketPath).roundTrip(Self.statusRequest)
            }
        }

        let load = try throughput(socketPath: agent.socketPath, agentPID: agent.pid)
        let p50 = roundTrip.summary?.median ?? .max, p99 = roundTrip.summary?.p99 ?? .max

        let floorP50 = floor.summary?.median ?? 1
        let floorRatio = Double(p50) / Double(max(1, floorP50))
        report.figures = [
            .time("status.roundTrip", "agent.status round trip (1 connection)", roundTrip),
            .time("status.epollFloor", "  the same line, minimal C epoll server", floor),
            .ratio("ratio.status.epollFloor", "  agent.status / C epoll server (p50)", floorRatio),
        ]
        if let cpuBefore, let cpuAfter {
            report.figures.append(.cpu("status.agentCPU", "  agent CPU time per request",
                                       nanoseconds: Double(cpuAfter - cpuBefore) / Double(requests)))
        }
        report.figures += [
            .time("status.freshConnection", "connect + agent.status + close", fresh),
            .rate("status.throughput", "agent.status, \(connections) connections", perSecond: load.perSecond),
            .time("status.latencyUnderLoad", "  round trip under that load", load.latencies),
        ]
        if let cpu = load.agentCPUPerRequest {
            report.figures.append(.cpu("status.agentCPUUnderLoad", "  agent CPU time per request", nanoseconds: cpu))
        }
        report.aims = [
            Aim(name: "round trip p50", target: "≤ 50 µs", measured: Report.time(p50), met: p50 <= 50_000),
            Aim(name: "round trip p50 / C epoll server's", target: "≤ \(Self.floorAim)×", measured: Report.ratio(floorRatio),
                met: floorRatio <= Self.floorAim),
            Aim(name: "round trip p99", target: "≤ 500 µs", measured: Report.time(p99), met: p99 <= 500_000),
            Aim(name: "throughput, \(connections) connections", target: "≥ 20,000 /s",
                measured: Report.grouped(Int(load.perSecond.rounded())) + " /s", met: load.perSecond >= 20_000),
        ]
        report.notes = [
            "round trip: \(requests) requests after \(warmUp) warm-up, raw client (no JSON parsing on the client side)",
            "C epoll server: passkey-bench-epoll, single-threaded, answers each line with the agent's own agent.status answer; same client, same request",
            "throughput: \(connections) connections × 1 request in flight, driven by one poll(2) thread for \(throughputSeconds) s; client and agent share the machine's processors",
            "agent CPU time: user + system time of the agent process (/proc/PID/stat, 10 ms ticks) divided by the requests answered — robust to a busy machine",
        ]
        return report
    }

    /// `connections` clients, each sending its next request as soon as the
    /// previous answer arrives, for `throughputSeconds` after a short warm-up.
    private func throughput(socketPath: String, agentPID: pid_t?) throws(BenchError)
        -> (perSecond: Double, latencies: Samples, agentCPUPerRequest: Double?) {
        let clients = try (0..<connections).map { (_) throws(BenchError) -> LineClient in
            try LineClient.agent(at: socketPath)
        }
        var polls = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let clock = ContinuousClock()
        var sentAt = [ContinuousClock.Instant](repeating: clock.now, count: clients.count)
        var scratch = [UInt8](repeating: 0, count: 64 << 10)
        var latencies: [Int64] = []
        latencies.reserveCapacity(1 << 20)

        for index in clients.indices {
            sentAt[index] = clock.now
            try clients[index].send(request: Self.statusRequest)
        }
        let warmUpEnd = clock.now + .milliseconds(500)
        let end = warmUpEnd + .milliseconds(Int64(throughputSeconds * 1000))
        var measuring = false
        var answered = 0
        var measuredStart = warmUpEnd
        var cpuAtStart: Int64?
        while true {
            let now = clock.now
            if !measuring && now >= warmUpEnd {
                measuring = true
                measuredStart = now
                cpuAtStart = agentPID.flatMap(ProcessCPUTime.of)
            }
            if now >= end { break }
            let ready = poll(&polls, nfds_t(polls.count), 1000)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw .stepFailed("the throughput run", reason: "the agent stopped answering for 1 s") }
            for index in polls.indices where polls[index].revents != 0 {
                let n = scratch.withUnsafeMutableBytes { recv(polls[index].fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { throw .stepFailed("the throughput run", reason: "the agent closed a connection") }
                // One request is in flight per connection, so a newline completes it.
                guard scratch[0..<n].contains(UInt8(ascii: "\n")) else { continue }
                let received = clock.now
                if measuring {
                    answered += 1
                    latencies.append((received - sentAt[index]).nanoseconds)
                }
                sentAt[index] = received
                try clients[index].send(request: Self.statusRequest)
            }
        }
        let seconds = Double((clock.now - measuredStart).nanoseconds) / 1e9
        var cpuPerRequest: Double?
        if let cpuAtStart, let cpuAtEnd = agentPID.flatMap(ProcessCPUTime.of), answered > 0 {
            cpuPerRequest = Double(cpuAtEnd - cpuAtStart) / Double(answered)
        }
        return (Double(answered) / seconds, Samples(nanoseconds: latencies), cpuPerRequest)
    }
}
