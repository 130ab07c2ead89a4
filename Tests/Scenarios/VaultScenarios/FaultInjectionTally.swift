import Foundation

/// What the fault injection counted and what it found wrong, by kind, for
/// the test's verdict and for `scripts/faults` to print.
final class FaultTally: @unchecked Sendable {
    enum FailureKind: String, CaseIterable {
        case unreadableEntry = "unreadable entry"
        case lostAcknowledgedWrite = "lost acknowledged write"
        case refusedRefreshToken = "refresh token refused"
        case lostCredential = "lost credential"
        case counterWentBack = "sign counter went back"
        case temporaryFileLeft = "temporary file left"
        case badKeySlots = "key slots wrong"
        case agentDidNotRecover = "agent did not recover"
        case requestHung = "request hung"
    }

    private let lock = NSLock()
    private(set) var killsByWorkload: [String: Int] = [:]
    private(set) var entriesChecked = 0
    private(set) var credentialsChecked = 0
    private(set) var rotationsChecked = 0
    private(set) var slotHeadersChecked = 0
    /// Rotations whose answer died with the agent, so that the previous
    /// refresh token was the one stored (taken by the endpoint's grace).
    private(set) var rotationsLostInFlight = 0
    private(set) var failures: [(FailureKind, String)] = []
    /// Temporary files the kills left, as seen right after the restarts
    /// (the agent removes them once stale; the final check wants none).
    var temporaryFilesSeen = 0

    /// Writes the agent acknowledged, by workload: proof the kills landed among writes.
    private(set) var acknowledgedByWorkload: [String: Int] = [:]

    func killed(during workload: String) { locked { killsByWorkload[workload, default: 0] += 1 } }
    func acknowledged(by workload: String) { locked { acknowledgedByWorkload[workload, default: 0] += 1 } }
    func checkedEntries(_ count: Int) { locked { entriesChecked += count } }
    func checkedCredentials(_ count: Int) { locked { credentialsChecked += count } }
    func checkedRotation(lostInFlight: Bool) {
        locked {
            rotationsChecked += 1
            if lostInFlight { rotationsLostInFlight += 1 }
        }
    }
    func checkedSlotHeader() { locked { slotHeadersChecked += 1 } }
    func fail(_ kind: FailureKind, _ what: String) { locked { failures.append((kind, what)) } }

    var kills: Int { locked { killsByWorkload.values.reduce(0, +) } }

    /// The figures, one `fault-injection:` line each (scripts/faults keeps them).
    func summary(seed: UInt64) -> String {
        locked {
            var lines = ["seed \(seed) (replay with PASSKEY_FAULT_SEED=\(seed))",
                         "kills \(killsByWorkload.values.reduce(0, +)): "
                             + killsByWorkload.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
                         "writes acknowledged: "
                             + acknowledgedByWorkload.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
                         "entries checked \(entriesChecked), credentials checked \(credentialsChecked), "
                             + "rotations checked \(rotationsChecked) (\(rotationsLostInFlight) answered by the endpoint but lost with the kill), "
                             + "slot headers checked \(slotHeadersChecked), "
                             + "temporary files left by kills \(temporaryFilesSeen)"]
            let byKind = Dictionary(grouping: failures, by: \.0)
            lines.append("failures \(failures.count)"
                         + (failures.isEmpty ? "" : ": " + FailureKind.allCases.compactMap { kind in
                             byKind[kind].map { "\(kind.rawValue) \($0.count)" } }.joined(separator: ", ")))
            for (kind, what) in failures.prefix(20) { lines.append("  \(kind.rawValue): \(what)") }
            return lines.map { "fault-injection: " + $0 }.joined(separator: "\n")
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

/// SplitMix64: a seeded generator, so a run's choices (which workload, when
/// to kill) replay from the printed seed. Thread timing still varies.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
