import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// SIGKILL at random instants while the real agent writes: token entries,
/// rotated refresh tokens, vault headers and the software authenticator's
/// state. After every kill the agent is restarted and unlocked, and each
/// workload's ledger of acknowledged writes is held against what it finds.
///
/// `PASSKEY_FAULT_KILLS` sets the number of kills (default 48, about half a
/// minute); `PASSKEY_FAULT_SEED` replays a run's choices. `scripts/faults`
/// runs the long mode and prints the `fault-injection:` figures.
@Suite(.ownThreads) struct FaultInjectionTests {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    @Test("SIGKILL during writes loses no entry, acknowledged write, refresh token, key slot, credential or counter")
    func killsDuringWrites() throws {
        let kills = Self.environment["PASSKEY_FAULT_KILLS"].flatMap { Int($0) } ?? 48
        let seed = Self.environment["PASSKEY_FAULT_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        print("fault-injection: seed \(seed), \(kills) kills")
        var generator = SeededGenerator(seed: seed)

        let endpoint = try RotatingTokenEndpoint()
        defer { endpoint.stop() }
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        let socket = agent.harness.socketPath
        let tally = FaultTally()
        let registrations = RegistrationWorkload(socketPath: socket, tally: tally)
        let workloads: [FaultWorkload] = [
            TokenPutWorkload(socketPath: socket, tally: tally),
            RotationWorkload(socketPath: socket, tally: tally, endpoint: endpoint),
            KeySlotWorkload(socketPath: socket, tally: tally, secondKey: agent.harness.home + "/second-key.json"),
            registrations,
        ]
        let setUp = try agent.harness.connect()
        for workload in workloads { try workload.setUp(setUp) }

        var leftovers: Set<String> = []
        for round in 1...max(1, kills) where kills > 0 {
            let workload = workloads[Int.random(in: 0..<workloads.count, using: &generator)]
            workload.start()
            usleep(UInt32.random(in: workload.killWindow, using: &generator))
            agent.harness.process?.stop(signal: SIGKILL)
            tally.killed(during: workload.name)
            workload.waitUntilStopped()

            let client: LineClient
            do {
                try agent.harness.start()
                client = try agent.harness.connect()
                let unlock = "{\"slot\":\"fido2\",\"device\":{\"device\":\"virtual\"}}"
                if case .failure(let error) = FaultWorkload.answer(client, 1, "agent.unlock", unlock) { throw error }
            } catch {
                tally.fail(.agentDidNotRecover, "after a kill during \(workload.name): \(error)")
                break
            }
            checkEveryEntryOpens(client, tally)
            workload.verify(client)
            leftovers.formUnion(temporaryFiles(under: agent.harness.home))
            if round % 100 == 0 { print("fault-injection: progress \(round) of \(kills) kills, \(tally.failures.count) failures") }
        }
        tally.temporaryFilesSeen = leftovers.count

        // A killed writer's temporary file is removed once it is stale: no
        // live writer holds its lock and it is more than 5 s old. Let every
        // one of them age, restart, and use each kind of file once more.
        sleep(6)
        do {
            try agent.restart()
            let client = try agent.harness.connect()
            let unlock = "{\"slot\":\"fido2\",\"device\":{\"device\":\"virtual\"}}"
            if case .failure(let error) = FaultWorkload.answer(client, 1, "agent.unlock", unlock) { throw error }
            registrations.sampled = RegistrationWorkload.users
            for workload in workloads { workload.verify(client) }
            // A state file's stale temporary files go when an agent first opens
            // it, and the second key was opened above only if it holds a slot:
            // a kill in an addSlot that never committed left its file unopened
            // (issue 30's `.second-key.json.tmp-…`). Open it once.
            let secondKey = "{\"device\":{\"device\":\"virtual\",\"virtualState\":\"\(agent.harness.home)/second-key.json\"}}"
            if case .failure(let error) = FaultWorkload.answer(client, 2, "key.info", secondKey) { throw error }
        } catch {
            tally.fail(.agentDidNotRecover, "at the final restart: \(error)")
        }
        for path in temporaryFiles(under: agent.harness.home) {
            tally.fail(.temporaryFileLeft, "\(path), still there 6 s after the last kill and a restart")
        }

        let summary = tally.summary(seed: seed)
        print(summary)
        #expect(tally.kills == kills)
        #expect(tally.failures.isEmpty, "\(summary)")
    }

    /// `token.list` opens every entry: none may be listed as damaged.
    private func checkEveryEntryOpens(_ client: LineClient, _ tally: FaultTally) {
        switch FaultWorkload.answer(client, 2, "token.list", "{}") {
        case .failure(let error):
            tally.fail(.unreadableEntry, "token.list: \(error.description)")
        case .success(let list):
            let damaged = (list["damaged"] as? [Any]) ?? []
            let tokens = (list["tokens"] as? [Any]) ?? []
            tally.checkedEntries(tokens.count + damaged.count)
            for entry in damaged { tally.fail(.unreadableEntry, "\(entry)") }
        }
    }

    /// SecureFile's temporary files are `.NAME.tmp-PID-RANDOM`, beside the file they replace.
    private func temporaryFiles(under home: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: home) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") && name.contains(".tmp-") { found.append(relative) }
        }
        return found
    }
}
