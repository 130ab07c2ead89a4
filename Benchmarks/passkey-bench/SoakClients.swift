import Harness
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The soak's clients, one POSIX thread each (a blocked client must not hold
/// up the others, as Dispatch's bounded pool would). Each runs until the
/// shared deadline, with every socket call bounded by a timeout, so the soak
/// stops by itself whatever the agent does.
enum SoakClients {
    /// The ways a client misbehaves, a quarter of the misbehaving clients each.
    enum Misbehaviour: String, CaseIterable, Sendable {
        /// Sends a valid request one byte every 100 ms.
        case slowWriter = "slow-writer"
        /// Sends half a line, then nothing, and holds the connection.
        case halfLine = "half-line"
        /// Sends requests as fast as the socket takes them and never reads an answer.
        case neverReads = "never-reads"
        /// Opens 20 connections at once, over and over: far past the limit.
        case flood = "flood"
    }

    /// What the well-behaved clients saw.
    struct Outcomes: Sendable {
        /// Request to answer, in nanoseconds, retries after a refusal included.
        var latencies: [Int64] = []
        var answered = 0
        /// `too_many_connections` answers (each retried after 50 ms).
        var refusals = 0
        /// No token within 10 s, or an answer that was not a token.
        var failures = 0
        var failureReasons: [String: Int] = [:]

        mutating func merge(_ other: Outcomes) {
            latencies += other.latencies
            answered += other.answered
            refusals += other.refusals
            failures += other.failures
            failureReasons.merge(other.failureReasons, uniquingKeysWith: +)
        }
    }

    /// Asks for `account`'s token like one `passkey token get`: connect,
    /// one request, one answer, close; then waits 250–750 ms; until `deadline`.
    static func wellBehaved(socketPath: String, account: String, until deadline: ContinuousClock.Instant) -> Outcomes {
        let request = Array(#"{"jsonrpc":"2.0","id":1,"method":"token.get","params":{"account":"\#(account)","minValid":60}}"#.utf8)
            + [UInt8(ascii: "\n")]
        let clock = ContinuousClock()
        var outcomes = Outcomes()
        var generator = SystemRandomNumberGenerator()
        while clock.now < deadline {
            let start = clock.now
            let giveUp = start + .seconds(10)
            var done = false
            while !done {
                guard clock.now < giveUp else {
                    outcomes.fail("no token within 10 s")
                    break
                }
                guard let socket = try? LineClient(path: socketPath, timeout: .seconds(10)) else {
                    outcomes.fail("connect: " + String(cString: strerror(errno)))
                    break
                }
                guard socket.sendAll(request) else {
                    // A refused connection is closed at once: its refusal line may still be readable.
                    if let line = socket.readAnswer(), line.contains("too_many_connections") {
                        outcomes.refusals += 1
                        usleep(50_000)
                        continue
                    }
                    outcomes.fail("send: " + String(cString: strerror(errno)))
                    break
                }
                guard let line = socket.readAnswer() else {
                    outcomes.fail("no answer: " + String(cString: strerror(errno)))
                    break
                }
                if line.contains(#""accessToken""#) {
                    outcomes.answered += 1
                    outcomes.latencies.append((clock.now - start).nanoseconds)
                    done = true
                } else if line.contains("too_many_connections") {
                    outcomes.refusals += 1
                    usleep(50_000)
                } else {
                    outcomes.fail("answer: " + String(line.prefix(80)))
                    break
                }
            }
            usleep(UInt32.random(in: 250_000...750_000, using: &generator))
        }
        return outcomes
    }

    /// Misbehaves in one way until `deadline`; returns the connections it opened.
    static func misbehave(_ kind: Misbehaviour, socketPath: String, until deadline: ContinuousClock.Instant) -> Int {
        let clock = ContinuousClock()
        var opened = 0
        let status = Array(#"{"jsonrpc":"2.0","id":1,"method":"agent.status"}"#.utf8) + [UInt8(ascii: "\n")]
        while clock.now < deadline {
            switch kind {
            case .slowWriter:
                guard let socket = try? LineClient(path: socketPath, timeout: .seconds(2)) else { break }
                opened += 1
                for byte in status where clock.now < deadline {
                    guard socket.sendAll([byte]) else { break }
                    usleep(100_000)
                }
                _ = socket.readAnswer()
            case .halfLine:
                guard let socket = try? LineClient(path: socketPath, timeout: .seconds(2)) else { break }
                opened += 1
                _ = socket.sendAll(Array(#"{"jsonrpc":"2.0","id":1,"meth"#.utf8))
                socket.waitForClose(until: deadline)
            case .neverReads:
                guard let socket = try? LineClient(path: socketPath, timeout: .milliseconds(200)) else { break }
                opened += 1
                let list = Array(#"{"jsonrpc":"2.0","id":1,"method":"token.list"}"#.utf8) + [UInt8(ascii: "\n")]
                let burst = Array(repeating: list, count: 64).flatMap { $0 }
                // Until the socket's buffers are full (the send times out) or the agent drops it.
                while clock.now < deadline && socket.sendAll(burst) {}
                socket.waitForClose(until: deadline)
            case .flood:
                let sockets = (0..<20).compactMap { _ in try? LineClient(path: socketPath, timeout: .milliseconds(500)) }
                opened += sockets.count
                for socket in sockets { _ = socket.sendAll(status) }
                usleep(20_000)
            }
            usleep(100_000)
        }
        return opened
    }
}

extension SoakClients.Outcomes {
    mutating func fail(_ reason: String) {
        failures += 1
        failureReasons[reason, default: 0] += 1
    }
}

/// The soak's client socket: the harness's `LineClient` made with a timeout
/// on its connect, sends and reads (SO_SNDTIMEO bounds a connect to a full
/// backlog too); a connect, send or read that gives up leaves `errno` saying why.
extension LineClient {
    /// False when the peer is gone or the send timed out.
    func sendAll(_ bytes: [UInt8]) -> Bool { (try? send(bytes)) != nil }

    /// The next line that is not a progress notification, or nil on close or timeout.
    func readAnswer() -> String? {
        while true {
            guard let line = try? nextLine({ String(decoding: $0, as: UTF8.self) }) else { return nil }
            if !line.contains(#""method":"progress""#) { return line }
        }
    }

    /// Sits on the connection, reading nothing, until the agent closes it or `deadline`.
    func waitForClose(until deadline: ContinuousClock.Instant) {
        let clock = ContinuousClock()
        while clock.now < deadline {
            var poller = pollfd(fd: fd, events: 0, revents: 0)
            if poll(&poller, 1, 200) > 0 && poller.revents & Int16(POLLHUP | POLLERR) != 0 { return }
        }
    }
}
