import Foundation
import Testing
import TestSupport

/// What the token-consumer tests (git, kubectl, docker) share: a real agent
/// with an account "work" signed in at the devserver, whose access tokens
/// live `lifetime` seconds — shorter than `token get`'s default --min-valid
/// (60), so every get refreshes and two operations carry two tokens.
struct TokenConsumerSetup {
    let provider: LoginProvider
    let agent: VaultAgent
    /// A directory of the test's own (servers, repositories, HOMEs), removed by `remove()`.
    let scratch: String

    init(lifetime: Int = 30) throws {
        provider = try LoginProvider.devserver(["--access-token-lifetime", "\(lifetime)"])
        agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        let login = try agent.harness.passkey(
            ["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
            extraEnvironment: provider.browserEnvironment(), timeout: 90)
        guard login.status == 0 else { throw TestFailure("passkey login failed: \(login.standardError)") }
        scratch = try TemporaryDirectory.make(prefix: "consumer")
    }

    func remove() { TemporaryDirectory.remove(scratch) }

    /// Writes config.toml (the agent and `passkey` read the same file).
    func writeConfig(_ text: String) throws {
        let directory = agent.harness.home + "/config/passkey-agent"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try text.write(toFile: directory + "/config.toml", atomically: true, encoding: .utf8)
    }

    /// The agent's environment with the built programs first on PATH (git
    /// finds `git-credential-passkey` there, kubectl `passkey`).
    func environment(_ extra: [String: String] = [:]) throws -> [String: String] {
        var environment = agent.harness.environment
        let built = (try ProgramPaths.built("passkey") as NSString).deletingLastPathComponent
        environment["PATH"] = built + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment.merging(extra) { _, new in new }
    }

    /// Every file under `roots` whose bytes hold any of `secrets`.
    static func files(under roots: [String], containing secrets: [String]) -> [String] {
        var found: [String] = []
        for root in roots {
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            while let relative = walker.nextObject() as? String {
                let path = root + "/" + relative
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                if secrets.contains(where: { data.range(of: Data($0.utf8)) != nil }) { found.append(path) }
            }
        }
        return found
    }

    /// A Python program from Tests/Interop run as a server: waits for its
    /// "listening PORT" line and answers the port.
    static func startServer(_ script: String, _ arguments: [String], directory: String,
                            name: String) throws -> (RunningProcess, Int) {
        let server = try RunningProcess("/usr/bin/env", ["python3", Interop.packageRoot + "/Tests/Interop/" + script] + arguments,
                                        environment: ProcessInfo.processInfo.environment, directory: directory, name: name)
        try server.waitUntil("\(script) listens", timeout: 30) {
            server.standardOutput.contains("listening ") || server.poll() != nil
        }
        guard let line = server.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }),
              let port = Int(line.dropFirst("listening ".count)) else {
            throw TestFailure("\(script) did not start: \(server.standardError)")
        }
        return (server, port)
    }
}
