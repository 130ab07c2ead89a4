import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The real `passkey-agent` with temporary XDG directories and a vault whose
/// key slot is the software authenticator (`--device virtual`), driven
/// through the real `passkey` CLI.
final class VaultAgent: @unchecked Sendable {
    let harness: AgentHarness
    /// The scripted person at the desktop (`PASSKEY_PINENTRY`), when asked for.
    let pinentry: ScriptedPinentry?
    private let pinentryDirectory: String?

    /// `person`: a scripted pinentry that answers every confirmation so, for the agent and `passkey`.
    init(extraEnvironment: [String: String] = [:], person: ScriptedPinentry.Answer? = nil) throws {
        if let person {
            let directory = try TemporaryDirectory.make(prefix: "pinentry")
            pinentryDirectory = directory
            pinentry = try ScriptedPinentry(in: directory, answer: person)
        } else {
            pinentryDirectory = nil
            pinentry = nil
        }
        harness = try AgentHarness(extraEnvironment: extraEnvironment.merging(pinentry?.environment ?? [:]) { _, scripted in scripted })
    }

    deinit {
        if let pinentryDirectory { TemporaryDirectory.remove(pinentryDirectory) }
    }

    func start(arguments: [String] = []) throws {
        try harness.start(arguments: arguments)
    }

    /// Stops the agent (SIGTERM, or `signal`) and starts a new one on the same directories.
    func restart(signal: Int32 = SIGTERM, arguments: [String] = []) throws {
        harness.process?.stop(signal: signal)
        try harness.start(arguments: arguments)
    }

    @discardableResult
    func passkey(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try harness.passkey(arguments, standardInput: input)
    }

    /// `vault init --slot fido2 --device virtual`, which leaves it unlocked in the agent.
    func initializeVault() throws {
        let created = try passkey(["vault", "init", "--slot", "fido2", "--device", "virtual"])
        try Self.require(created, "vault init")
    }

    func unlock() throws {
        try Self.require(try passkey(["unlock", "--slot", "fido2", "--device", "virtual"]), "unlock")
    }

    func put(_ account: String, _ document: String) throws {
        try Self.require(try passkey(["token", "put", account], input: document), "token put \(account)")
    }

    /// `agent.status` over the socket.
    func status() throws -> [String: Any] {
        try #require(try harness.connect().call(1, "agent.status").result)
    }

    var isLocked: Bool {
        get throws { ((try status()["vault"] as? [String: Any])?["locked"] as? Bool) ?? false }
    }

    /// Every file under the agent's XDG directories, and its log.
    func files() -> [String] {
        var found: [String] = []
        for directory in ["data", "config", "state", "run", ".cache"] {
            let root = harness.home + "/" + directory
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            while let relative = walker.nextObject() as? String {
                var isDirectory: ObjCBool = false
                let path = root + "/" + relative
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    found.append(path)
                }
            }
        }
        if let process = harness.process { found += [process.standardErrorPath, process.standardOutputPath] }
        return found
    }

    /// The files (and logs) in which any of `secrets` appears.
    func filesContaining(_ secrets: [String]) -> [String] {
        files().filter { path in
            guard let data = FileManager.default.contents(atPath: path) else { return false }
            return secrets.contains { data.range(of: Data($0.utf8)) != nil }
        }
    }

    /// The vault's entry files.
    var entryFiles: [String] {
        let directory = harness.home + "/data/passkey-agent/vault/entries"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { !$0.hasPrefix(".") }.map { directory + "/" + $0 }.sorted()
    }

    static func require(_ result: ProcessResult, _ what: String) throws {
        guard result.status == 0 else {
            throw TestFailure("`passkey \(what)` failed (\(result.status)): \(result.standardError)")
        }
    }

    /// An OAuth token response plus what `token put` needs to refresh it.
    static func document(access: String, refresh: String?, expiresIn: Int, endpoint: String,
                         idToken: String? = nil) -> String {
        var members = ["\"access_token\":\"\(access)\"", "\"token_type\":\"Bearer\"", "\"expires_in\":\(expiresIn)",
                       "\"issuer\":\"https://id.example.org\"", "\"client_id\":\"cli\"", "\"token_endpoint\":\"\(endpoint)\"",
                       "\"scope\":\"openid offline_access\""]
        if let refresh { members.append("\"refresh_token\":\"\(refresh)\"") }
        if let idToken { members.append("\"id_token\":\"\(idToken)\"") }
        return "{" + members.joined(separator: ",") + "}"
    }
}
