import Foundation
import Testing
import TestSupport

/// A credential helper asks only on the controlling terminal: git reads its
/// stdout and may hide its stderr, so a question there is one nobody sees.
@Suite(.ownThreads) struct HelperPromptTests {
    static let description = "protocol=https\nhost=git.example.org\n\n"

    @Test("locked vault: the git helper asks on /dev/tty (not stderr), unlocks with the key, and answers git")
    func asksOnTheTerminal() throws {
        let setup = try TokenConsumerSetup()
        defer { setup.remove() }
        try setup.writeConfig("""
            [device]
            default = "virtual"
            [credential.example]
            url = "https://git.example.org"
            account = "work"
            """)
        try setup.agent.passkey(["lock"])
        #expect(try setup.agent.isLocked)
        let scratch = setup.scratch
        try Self.description.write(toFile: scratch + "/in", atomically: true, encoding: .utf8)
        let run = try ProcessResult.run("/usr/bin/env", [
            "python3", Interop.packageRoot + "/Tests/Interop/with_terminal.py",
            scratch + "/in", scratch + "/out", scratch + "/err", scratch + "/transcript", "Unlock it now? [y/N]", "y",
            "--", try ProgramPaths.built("git-credential-passkey"), "get"],
            standardInput: nil, environment: try setup.environment(), scratch: scratch, timeout: 120)
        let transcript = TextFile.read(scratch + "/transcript"), standardError = TextFile.read(scratch + "/err")
        #expect(run.status == 0, "\(run.standardError) \(standardError) \(transcript)")
        #expect(transcript.contains("the vault is locked"), "the question was asked on the terminal: \(transcript)")
        #expect(!standardError.contains("Unlock") && !standardError.contains("Touch"), "nothing asked on stderr: \(standardError)")
        let output = TextFile.read(scratch + "/out")
        #expect(output.hasPrefix("username=oauth2\npassword="), "\(output)")
        #expect(try !setup.agent.isLocked)
    }

    @Test("locked vault, no terminal: the helpers fail at once, asking nobody")
    func noTerminalNoQuestion() throws {
        let setup = try TokenConsumerSetup()
        defer { setup.remove() }
        try setup.writeConfig("""
            [credential.example]
            url = "https://git.example.org"
            account = "work"
            """)
        try setup.agent.passkey(["lock"])
        // setsid: a new session, with no controlling terminal, as under a GUI or cron.
        let git = try ProcessResult.run("/usr/bin/setsid", ["-w", try ProgramPaths.built("git-credential-passkey"), "get"],
                                        standardInput: Self.description, environment: try setup.environment(),
                                        scratch: setup.scratch, timeout: 60)
        #expect(git.status == 7, "\(git.standardError)")
        #expect(git.standardOutput.isEmpty)
        #expect(git.standardError.contains("locked") && !git.standardError.contains("Unlock it now"))
        let docker = try ProcessResult.run("/usr/bin/setsid", ["-w", try ProgramPaths.built("docker-credential-passkey"), "get"],
                                           standardInput: "https://git.example.org\n", environment: try setup.environment(),
                                           scratch: setup.scratch, timeout: 60)
        #expect(docker.status == 1)
        #expect(docker.standardOutput.contains("locked"), "docker reads the error on stdout: \(docker.standardOutput)")
        #expect(try setup.agent.isLocked)
    }
}
