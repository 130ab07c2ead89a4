import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A full disk under the vault, two ways: the real agent in a mount
/// namespace of its own (`unshare --mount`, so nothing is mounted on the
/// machine) with a 128 KiB tmpfs as its data directory — root, as CI runs
/// the tests — and the agent under an `RLIMIT_FSIZE`, whose SIGXFSZ would
/// kill it unless it ignores the signal.
@Suite(.ownThreads) struct FaultInjectionDiskFullTests {
    /// `token.put` of `access` for account "work" over `client`.
    static func put(_ client: LineClient, _ id: Int, _ access: String) throws -> [String: Any] {
        let document = VaultAgent.document(access: access, refresh: "RT-disk", expiresIn: 86_400,
                                           endpoint: "https://id.example.org/token")
        return try client.call(id, "token.put", params: "{\"account\":\"work\",\"token\":\(document)}")
    }

    static func stored(_ client: LineClient, _ id: Int) throws -> String? {
        try client.call(id, "token.get", params: "{\"account\":\"work\",\"minValid\":0}").result?["accessToken"] as? String
    }

    @Test("past RLIMIT_FSIZE a token.put answers vault_error (EFBIG), the agent lives on, the old entry stays")
    func fileSizeLimitKeepsTheAgentAndTheOldEntry() throws {
        let harness = try AgentHarness()
        // 64 KiB per file: the header, the authenticator's state and a small entry fit; 200 KB does not.
        let agent = try RunningProcess("/usr/bin/prlimit", ["--fsize=65536", try ProgramPaths.built("passkey-agent"), "--foreground"],
                                       environment: harness.environment, directory: harness.home, name: "agent")
        defer { agent.stop(signal: SIGKILL) }
        try agent.waitUntil("the agent listens") { (try? harness.connect()) != nil }
        let created = try harness.passkey(["vault", "init", "--slot", "fido2", "--device", "virtual"])
        try #require(created.status == 0, "\(created.standardError)")
        let client = try harness.connect()
        #expect(try Self.put(client, 1, "AT-before").result != nil)

        let tooLarge = try Self.put(client, 2, "AT-" + String(repeating: "y", count: 200_000))
        #expect(agent.poll() == nil, "SIGXFSZ did not kill the agent: \(agent.standardError.suffix(300))")
        #expect(tooLarge.errorKind == "vault_error", "\(tooLarge)")
        let message = (tooLarge["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("File too large"), "\(message)")
        #expect(try Self.stored(client, 3) == "AT-before")
        let entries = harness.home + "/data/passkey-agent/vault/entries"
        let names = try FileManager.default.contentsOfDirectory(atPath: entries)
        #expect(names.filter { $0.contains(".tmp-") }.isEmpty, "\(names)")
    }

    @Test("a token.put the full disk cannot take answers vault_error (ENOSPC), leaves no temporary file, keeps the old entry")
    func fullDiskKeepsTheOldEntry() throws {
        let harness = try AgentHarness()
        let data = harness.home + "/data/passkey-agent"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // The tmpfs exists only in the agent's namespace; /proc/PID/root sees through it.
        let mountAndRun = "mount -t tmpfs -o size=128k,mode=0700 passkey-full \"$0\" && exec \"$1\" --foreground"
        let agent = try RunningProcess("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", mountAndRun,
                                                            data, try ProgramPaths.built("passkey-agent")],
                                       environment: harness.environment, directory: harness.home, name: "agent")
        defer { agent.stop(signal: SIGKILL) }
        try agent.waitUntil("the agent listens") { (try? harness.connect()) != nil }
        let mounted = try String(contentsOfFile: "/proc/\(agent.pid)/mounts", encoding: .utf8)
        try #require(mounted.contains("passkey-full \(data) tmpfs"), "the agent runs on the small tmpfs")

        let created = try harness.passkey(["vault", "init", "--slot", "fido2", "--device", "virtual"])
        try #require(created.status == 0, "\(created.standardError)")
        let client = try harness.connect()
        func put(_ id: Int, _ access: String) throws -> [String: Any] { try Self.put(client, id, access) }
        func stored(_ id: Int) throws -> String? { try Self.stored(client, id) }
        #expect(try put(1, "AT-before").result != nil)

        // 200 KB fits an entry (256 KiB) but not the disk.
        let full = try put(2, "AT-" + String(repeating: "x", count: 200_000))
        #expect(full.errorKind == "vault_error", "\(full)")
        let message = (full["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("No space left on device"), "\(message)")
        #expect(!message.contains("xxxxxxxx"), "the token is not in the message")
        #expect(try stored(3) == "AT-before")

        let entries = "/proc/\(agent.pid)/root\(data)/vault/entries"
        let names = try FileManager.default.contentsOfDirectory(atPath: entries)
        #expect(names.filter { $0.contains(".tmp-") }.isEmpty, "\(names)")
        // The failed write gave its space back: a small one fits again.
        #expect(try put(4, "AT-after").result != nil)
        #expect(try stored(5) == "AT-after")
        #expect(agent.poll() == nil, "the agent is still running")
    }
}
