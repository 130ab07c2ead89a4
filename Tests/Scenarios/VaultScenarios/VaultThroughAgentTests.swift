import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The vault through the real agent and CLI, opened by the software
/// authenticator: crashes mid-write, damaged entries, the ways it locks.
@Suite(.ownThreads) struct VaultThroughAgentTests {
    @Test("kill -9 at random points during a stream of writes never leaves an unreadable entry")
    func crashesLeaveOldOrNewValues() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        let accounts = ["alpha", "beta", "gamma"]
        let written = WrittenValues()
        for account in accounts {
            try agent.put(account, VaultAgent.document(access: "\(account)-initial", refresh: "r", expiresIn: 86_400,
                                                       endpoint: "https://id.example.org/token"))
            written.insert("\(account)-initial", for: account)
        }
        for round in 0..<6 {
            // One writer per account, each putting new values as fast as the agent answers.
            let writers = accounts.map { account in
                Thread {
                    guard let client = try? agent.harness.connect() else { return }
                    for index in 0..<10_000 {
                        let value = "\(account)-\(round)-\(index)"
                        // Recorded before it is sent: a value the agent may have written.
                        written.insert(value, for: account)
                        let document = VaultAgent.document(access: value, refresh: "r", expiresIn: 86_400,
                                                           endpoint: "https://id.example.org/token")
                        let params = "{\"account\":\"\(account)\",\"token\":\(document)}"
                        guard let answer = try? client.call(index + 1, "token.put", params: params, timeout: 5),
                              answer.result != nil else { return }
                    }
                }
            }
            writers.forEach { $0.start() }
            usleep(UInt32.random(in: 50_000...400_000))
            try agent.restart(signal: SIGKILL)
            while writers.contains(where: \.isExecuting) { usleep(10_000) }

            try agent.unlock()
            let list = try agent.passkey(["token", "list", "--json"])
            #expect(list.status == 0, "\(list.standardError)")
            let listed = try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [String: Any]
            #expect((listed?["damaged"] as? [Any])?.isEmpty == true, "round \(round): \(list.standardOutput)")
            for account in accounts {
                let got = try agent.passkey(["token", "get", account])
                #expect(got.status == 0, "round \(round), \(account): \(got.standardError)")
                let value = got.standardOutput.trimmingCharacters(in: .newlines)
                #expect(written.contains(value, for: account), "round \(round): \(account) holds \(value)")
            }
        }
    }

    @Test("a damaged entry fails alone, naming its file; the others still read")
    func damagedEntryFailsAlone() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        let before = Set(agent.entryFiles)
        try agent.put("good", VaultAgent.document(access: "good-token", refresh: nil, expiresIn: 3600, endpoint: "https://id.example.org/t"))
        let goodFile = try #require(Set(agent.entryFiles).subtracting(before).first)
        try agent.put("bad", VaultAgent.document(access: "bad-token", refresh: nil, expiresIn: 3600, endpoint: "https://id.example.org/t"))
        let badFile = try #require(Set(agent.entryFiles).subtracting(before).subtracting([goodFile]).first)

        // Flip one byte of the ciphertext.
        var bytes = try #require(FileManager.default.contents(atPath: badFile))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: badFile))

        let bad = try agent.passkey(["token", "get", "bad"])
        #expect(bad.status == 7)
        #expect(bad.standardError.contains(badFile), "\(bad.standardError)")
        #expect(bad.standardError.contains("damaged"))
        let good = try agent.passkey(["token", "get", "good"])
        #expect(good.standardOutput == "good-token\n", "\(good.standardError)")
        let list = try agent.passkey(["token", "list"])
        #expect(list.status == 0)
        #expect(list.standardOutput.contains("good"))
        #expect(list.standardError.contains(badFile))

        // A truncated file, and one entry copied over another's name, fail the same way.
        try Data(bytes.prefix(40)).write(to: URL(fileURLWithPath: badFile))
        #expect(try agent.passkey(["token", "get", "bad"]).standardError.contains("damaged"))
        try FileManager.default.removeItem(atPath: badFile)
        try FileManager.default.copyItem(atPath: goodFile, toPath: badFile)
        let swapped = try agent.passkey(["token", "get", "bad"])
        #expect(swapped.status == 7)
        #expect(swapped.standardError.contains("does not match its file name"))
        // Storing it again repairs it.
        try agent.put("bad", VaultAgent.document(access: "bad-again", refresh: nil, expiresIn: 3600, endpoint: "https://id.example.org/t"))
        #expect(try agent.passkey(["token", "get", "bad"]).standardOutput == "bad-again\n")
    }

    @Test("the vault locks on agent.lock, SIGHUP and the idle timeout; vault status says so")
    func locking() throws {
        let agent = try VaultAgent()
        try agent.start(arguments: ["--idle-timeout", "2"])
        try agent.initializeVault()
        #expect(try !agent.isLocked)

        kill(try #require(agent.harness.process?.pid), SIGHUP)
        try agent.harness.process?.waitUntil("SIGHUP locks the vault") { (try? agent.isLocked) == true }
        let status = try agent.passkey(["vault", "status", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        #expect(report["locked"] as? Bool == true)
        #expect(report["lockReason"] as? String == "SIGHUP")
        #expect(report["idleLockSeconds"] as? Int == 2)

        // Left alone after an unlock, it locks itself.
        try agent.unlock()
        #expect(try !agent.isLocked)
        try agent.harness.process?.waitUntil("the idle timeout locks the vault", timeout: 30) { (try? agent.isLocked) == true }
        let idle = try agent.passkey(["vault", "status"])
        #expect(idle.standardOutput.contains("locked (idle for 2 s)"), "\(idle.standardOutput)")

        try agent.unlock()
        let locked = try agent.passkey(["lock"])
        #expect(locked.standardOutput == "Locked.\n")
        #expect(try agent.passkey(["lock"]).standardOutput == "The vault was already locked.\n")
        let get = try agent.passkey(["token", "get", "work"])
        #expect(get.status == 7)
        #expect(get.standardError == "passkey: the vault is locked: unlock it with `passkey unlock`\n")
    }

    @Test("init never overwrites; slots are added and removed, never the last; a FIDO2 slot opens the same vault")
    func slotsAndInit() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        try agent.put("work", VaultAgent.document(access: "kept", refresh: nil, expiresIn: 3600, endpoint: "https://id.example.org/t"))
        let header = agent.harness.home + "/data/passkey-agent/vault/header"
        let original = try #require(FileManager.default.contents(atPath: header))

        let again = try agent.passkey(["vault", "init", "--slot", "fido2", "--device", "virtual"])
        #expect(again.status == 7)
        #expect(again.standardError.contains("already exists"))
        #expect(FileManager.default.contents(atPath: header) == original)

        let last = try agent.passkey(["vault", "remove-slot", "1"])
        #expect(last.status == 7)
        #expect(last.standardError.contains("only key slot"))

        // A second software authenticator (another state file) as a second slot.
        let second = agent.harness.home + "/second-key.json"
        let added = try agent.passkey(["vault", "add-slot", "fido2", "--device", "virtual", "--virtual-state", second])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.standardOutput.contains("Added slot 2"))
        try VaultAgent.require(try agent.passkey(["lock"]), "lock")
        let unlocked = try agent.passkey(["unlock", "--device", "virtual", "--virtual-state", second])
        #expect(unlocked.status == 0, "\(unlocked.standardError)")
        #expect(unlocked.standardOutput.contains("slot 2"))
        #expect(try agent.passkey(["token", "get", "work"]).standardOutput == "kept\n")

        let removed = try agent.passkey(["vault", "remove-slot", "1"])
        #expect(removed.status == 0, "\(removed.standardError)")
        try VaultAgent.require(try agent.passkey(["lock"]), "lock")
        // The first key no longer opens it; the error says which key is enrolled.
        let stale = try agent.passkey(["unlock", "--device", "virtual"])
        #expect(stale.status == 10, "\(stale.standardError)")
        #expect(stale.standardError.contains("holds none of the vault's fido2 credentials"))
        let status = try agent.passkey(["vault", "status", "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        #expect((report["slots"] as? [[String: Any]])?.map { $0["id"] as? Int } == [2])
        #expect(report["entries"] as? Int == 1)
    }

    @Test("token list shows account, issuer, subject and expiry from the ID token's claims, never a token")
    func listShowsClaimsNeverTokens() throws {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let idToken = part(#"{"alg":"RS256"}"#) + "." + part(#"{"sub":"alice","iss":"https://id.example.org","aud":"cli","exp":4102444800,"iat":1700000000}"#) + ".c2lnbmF0dXJl"
        try agent.put("work", VaultAgent.document(access: "AT-listed", refresh: "RT-listed", expiresIn: 3600,
                                                  endpoint: "https://id.example.org/token", idToken: idToken))
        let list = try agent.passkey(["token", "list"])
        #expect(list.status == 0, "\(list.standardError)")
        let lines = list.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ACCOUNT") == true)
        #expect(lines.last?.contains("work") == true && lines.last?.contains("alice") == true
                && lines.last?.contains("https://id.example.org") == true && lines.last?.contains("(in ") == true,
                "\(list.standardOutput)")
        let json = try agent.passkey(["token", "list", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let entry = try #require((object["tokens"] as? [[String: Any]])?.first)
        let claims = try #require(entry["claims"] as? [String: Any])
        #expect(claims["subject"] as? String == "alice")
        #expect(claims["audience"] as? [String] == ["cli"])
        #expect(claims["issuedAt"] as? Int == 1_700_000_000)
        #expect(entry["hasRefreshToken"] as? Bool == true)
        for output in [list.standardOutput, json.standardOutput] {
            #expect(!output.contains("AT-listed") && !output.contains("RT-listed") && !output.contains(idToken))
        }
    }

    @Test("without an agent: unlock says nothing would hold it; init creates the vault and it stays locked")
    func withoutAnAgent() throws {
        let agent = try VaultAgent()
        let unlock = try agent.passkey(["unlock", "--no-agent"])
        #expect(unlock.status == 7)
        #expect(unlock.standardError.contains("no passkey-agent is running"))
        let created = try agent.passkey(["vault", "init", "--slot", "fido2", "--device", "virtual"])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.contains("locked again now"))
        let put = try agent.passkey(["token", "put", "work"], input: VaultAgent.document(
            access: "x", refresh: nil, expiresIn: 60, endpoint: "https://id.example.org/t"))
        #expect(put.status == 7)
        #expect(put.standardError.contains("no passkey-agent is running"))
        let status = try agent.passkey(["vault", "status"])
        #expect(status.standardOutput.contains("locked"))
        #expect(status.standardOutput.contains("no agent is running"))
    }
}

/// The values each writer has sent, shared by the writer threads.
final class WrittenValues: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Set<String>] = [:]

    func insert(_ value: String, for account: String) {
        lock.lock()
        values[account, default: []].insert(value)
        lock.unlock()
    }

    func contains(_ value: String, for account: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return values[account]?.contains(value) == true
    }
}
