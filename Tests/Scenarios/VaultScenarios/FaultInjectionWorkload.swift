import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One kind of write the fault injection kills the agent in the middle of.
///
/// Each workload runs client threads that write through the agent's socket
/// as fast as it answers, and keeps a ledger of what the agent acknowledged
/// (a success answer reached the client) and what was in flight when the
/// agent died. After the restart, `verify` holds the agent's state against
/// that ledger, then adopts what it saw, so the next round starts from it.
class FaultWorkload: @unchecked Sendable {
    let name: String
    let socketPath: String
    let tally: FaultTally
    /// How long after the clients start the kill may land (µs): long enough
    /// to reach the middle of several operations of this kind.
    let killWindow: ClosedRange<UInt32>
    private let lock = NSLock()
    private var threads: [Thread] = []
    private var round = 0

    init(name: String, socketPath: String, tally: FaultTally, killWindow: ClosedRange<UInt32>) {
        self.name = name
        self.socketPath = socketPath
        self.tally = tally
        self.killWindow = killWindow
    }

    /// Prepares the accounts or keys it writes to, before the first kill.
    func setUp(_ client: LineClient) throws {}

    /// The client threads' bodies for one round; each returns when a call fails (the agent died).
    func clients(round: Int) -> [@Sendable () -> Void] { [] }

    /// After restart and unlock: checks the invariants and adopts what it observed.
    func verify(_ client: LineClient) {}

    func start() {
        let bodies = locked { () -> [@Sendable () -> Void] in
            round += 1
            return clients(round: round)
        }
        let started = bodies.map { body in Thread { body() } }
        locked { threads = started }
        started.forEach { $0.start() }
    }

    /// Waits for the client threads to notice the agent is gone.
    func waitUntilStopped() {
        let running = locked { threads }
        let deadline = Date().addingTimeInterval(60)
        while running.contains(where: \.isExecuting) && Date() < deadline { usleep(5_000) }
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// `call`, as the result object or nil (an error answer, or no answer at all).
    static func result(_ client: LineClient, _ id: Int, _ method: String, _ params: String,
                       timeout: TimeInterval = 30) -> [String: Any]? {
        (try? client.call(id, method, params: params, timeout: timeout))?.result
    }

    /// The answer, or an error message when there was none.
    static func answer(_ client: LineClient, _ id: Int, _ method: String, _ params: String,
                       timeout: TimeInterval = 30) -> Result<[String: Any], TestFailure> {
        do {
            let answer = try client.call(id, method, params: params, timeout: timeout)
            if let result = answer.result { return .success(result) }
            let error = answer["error"] as? [String: Any]
            return .failure(TestFailure("\(answer.errorKind ?? "?"): \(error?["message"] as? String ?? "\(answer)")"))
        } catch {
            return .failure(TestFailure("no answer: \(error)"))
        }
    }
}

/// `token.put`: three accounts, one writer each, distinct values.
final class TokenPutWorkload: FaultWorkload, @unchecked Sendable {
    static let accounts = ["put-0", "put-1", "put-2"]
    private var acknowledged: [String: String] = [:]
    private var inFlight: [String: String] = [:]

    init(socketPath: String, tally: FaultTally) {
        super.init(name: "token.put", socketPath: socketPath, tally: tally, killWindow: 2_000...60_000)
    }

    static func params(_ account: String, _ value: String) -> String {
        let document = VaultAgent.document(access: value, refresh: "RT-\(value)", expiresIn: 86_400,
                                           endpoint: "https://id.example.org/token")
        return "{\"account\":\"\(account)\",\"token\":\(document)}"
    }

    override func setUp(_ client: LineClient) throws {
        for (index, account) in Self.accounts.enumerated() {
            let value = "\(account)-initial"
            guard Self.result(client, index + 1, "token.put", Self.params(account, value)) != nil else {
                throw TestFailure("the first token.put of \(account) failed")
            }
            locked { acknowledged[account] = value }
        }
    }

    override func clients(round: Int) -> [@Sendable () -> Void] {
        Self.accounts.map { account in
            { [self] in
                guard let client = try? LineClient(path: socketPath) else { return }
                for index in 1...1_000_000 {
                    let value = "\(account)-\(round)-\(index)"
                    // Recorded before it is sent: from here on the agent may have written it.
                    locked { inFlight[account] = value }
                    guard Self.result(client, index, "token.put", Self.params(account, value), timeout: 10) != nil else { return }
                    locked {
                        acknowledged[account] = value
                        inFlight[account] = nil
                    }
                    tally.acknowledged(by: name)
                }
            }
        }
    }

    override func verify(_ client: LineClient) {
        for (index, account) in Self.accounts.enumerated() {
            let (acked, pending) = locked { (acknowledged[account], inFlight[account]) }
            tally.checkedEntries(1)
            switch Self.answer(client, 100 + index, "token.get", "{\"account\":\"\(account)\",\"minValid\":0}") {
            case .failure(let error):
                tally.fail(.unreadableEntry, "\(account): \(error.description)")
            case .success(let result):
                let value = result["accessToken"] as? String
                if value != acked && value != pending {
                    tally.fail(.lostAcknowledgedWrite,
                               "\(account) holds \(value ?? "nothing"), acknowledged \(acked ?? "-"), in flight \(pending ?? "-")")
                }
                locked {
                    acknowledged[account] = value
                    inFlight[account] = nil
                }
            }
        }
    }
}

/// Refresh with rotation: `token.get`s of an account whose access tokens
/// are always expired, so each one rotates the refresh token.
final class RotationWorkload: FaultWorkload, @unchecked Sendable {
    static let account = "rotating"
    let endpoint: RotatingTokenEndpoint
    /// N of the newest `AT-N` a client received: `RT-N` was stored before it was handed out.
    private var acknowledged = 1

    init(socketPath: String, tally: FaultTally, endpoint: RotatingTokenEndpoint) {
        self.endpoint = endpoint
        super.init(name: "refresh with rotation", socketPath: socketPath, tally: tally, killWindow: 2_000...80_000)
    }

    private var putParams: String {
        let newest = endpoint.newest
        let document = VaultAgent.document(access: "AT-\(newest)", refresh: "RT-\(newest)", expiresIn: 0, endpoint: endpoint.url)
        return "{\"account\":\"\(Self.account)\",\"token\":\(document)}"
    }

    override func setUp(_ client: LineClient) throws {
        guard Self.result(client, 1, "token.put", putParams) != nil else { throw TestFailure("token.put \(Self.account) failed") }
    }

    static func number(_ accessToken: Any?) -> Int? {
        (accessToken as? String).flatMap { $0.hasPrefix("AT-") ? Int($0.dropFirst(3)) : nil }
    }

    private func acknowledge(_ number: Int) { locked { acknowledged = max(acknowledged, number) } }

    override func clients(round: Int) -> [@Sendable () -> Void] {
        (0..<2).map { _ in
            { [self] in
                guard let client = try? LineClient(path: socketPath) else { return }
                for index in 1...1_000_000 {
                    let params = "{\"account\":\"\(Self.account)\",\"minValid\":3600}"
                    guard let number = Self.number(Self.result(client, index, "token.get", params, timeout: 20)?["accessToken"]) else { return }
                    acknowledge(number)
                    tally.acknowledged(by: name)
                }
            }
        }
    }

    override func verify(_ client: LineClient) {
        let acked = locked { acknowledged }
        tally.checkedEntries(1)
        switch Self.answer(client, 200, "token.get", "{\"account\":\"\(Self.account)\",\"minValid\":3600}") {
        case .failure(let error):
            let kind: FaultTally.FailureKind = error.description.contains("invalid_grant") ? .refusedRefreshToken : .unreadableEntry
            tally.fail(kind, "after acknowledging AT-\(acked): \(error.description)")
            // Start the next round from a token the endpoint takes.
            if Self.result(client, 201, "token.put", putParams) != nil { locked { acknowledged = endpoint.newest } }
        case .success(let result):
            guard let number = Self.number(result["accessToken"]),
                  let grant = endpoint.received.last(where: { $0.accepted && $0.newest == number - 1 }) else {
                tally.fail(.refusedRefreshToken, "an answer the endpoint never gave: \(result["accessToken"] ?? "nothing")")
                return
            }
            tally.checkedRotation(lostInFlight: grant.byGrace)
            if let presented = grant.presented, presented < acked {
                tally.fail(.lostAcknowledgedWrite, "presented RT-\(presented) after AT-\(acked) was acknowledged")
            }
            locked { acknowledged = number }
        }
    }
}

/// `vault.addSlot` / `vault.removeSlot`: a second software authenticator
/// enrolled and removed in turn, each a rewrite of the vault header.
final class KeySlotWorkload: FaultWorkload, @unchecked Sendable {
    enum Change { case add, remove(Int) }
    let secondKey: String
    private var acknowledged: Set<Int> = [1]
    private var inFlight: Change?

    init(socketPath: String, tally: FaultTally, secondKey: String) {
        self.secondKey = secondKey
        super.init(name: "vault.addSlot/removeSlot", socketPath: socketPath, tally: tally, killWindow: 5_000...200_000)
    }

    var secondKeyParams: String { "{\"slot\":\"fido2\",\"device\":{\"device\":\"virtual\",\"virtualState\":\"\(secondKey)\"}}" }

    static func slotIDs(_ report: [String: Any]?) -> Set<Int>? {
        (report?["slots"] as? [[String: Any]]).map { Set($0.compactMap { $0["id"] as? Int }) }
    }

    override func clients(round: Int) -> [@Sendable () -> Void] {
        [{ [self] in
            guard let client = try? LineClient(path: socketPath) else { return }
            for index in 1...1_000_000 {
                let change: Change = locked { acknowledged.subtracting([1]).min().map { .remove($0) } ?? .add }
                locked { inFlight = change }
                let report: [String: Any]?
                switch change {
                case .add: report = Self.result(client, index, "vault.addSlot", secondKeyParams)
                case .remove(let slot): report = Self.result(client, index, "vault.removeSlot", "{\"slot\":\(slot)}")
                }
                guard let slots = Self.slotIDs(report) else { return }
                locked {
                    acknowledged = slots
                    inFlight = nil
                }
                tally.acknowledged(by: name)
            }
        }]
    }

    override func verify(_ client: LineClient) {
        let (acked, pending) = locked { (acknowledged, inFlight) }
        tally.checkedSlotHeader()
        guard let slots = Self.slotIDs(Self.result(client, 300, "vault.status", "{}")) else {
            tally.fail(.badKeySlots, "vault.status has no slots")
            return
        }
        let allowed: Bool
        switch pending {
        case nil: allowed = slots == acked
        case .add: allowed = slots == acked || (slots.isSuperset(of: acked) && slots.count == acked.count + 1)
        case .remove(let slot): allowed = slots == acked || slots == acked.subtracting([slot])
        }
        if !allowed || !slots.contains(1) {
            tally.fail(.badKeySlots, "slots \(slots.sorted()), acknowledged \(acked.sorted()), in flight \(String(describing: pending))")
        }
        // A slot in the header must open the vault: unlock with the second key.
        if !slots.subtracting([1]).isEmpty, case .failure(let error) = Self.answer(client, 301, "agent.unlock", secondKeyParams) {
            tally.fail(.badKeySlots, "slots \(slots.sorted()): the second key does not unlock: \(error.description)")
        }
        locked {
            acknowledged = slots
            inFlight = nil
        }
    }
}
