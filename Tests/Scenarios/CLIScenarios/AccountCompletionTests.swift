import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Account names complete in the shell from the login settings, with no
/// agent and no vault: bash runs ArgumentParser's generated script, which
/// calls `passkey ---completion` back (zsh and fish scripts use the same call).
@Suite(.ownThreads) struct AccountCompletionTests {
    @Test func bashCompletesAccountNamesFromTheSettings() throws {
        let harness = try AgentHarness()
        let accounts = harness.home + "/config/passkey-agent/accounts"
        try FileManager.default.createDirectory(atPath: accounts, withIntermediateDirectories: true)
        chmod(harness.home + "/config/passkey-agent", 0o700)
        chmod(accounts, 0o700)
        for name in ["work", "wolf", "team"] {
            let path = accounts + "/\(name).toml"
            try "issuer = \"https://id.example.org\"\nclient_id = \"cli\"\n".write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)
        }
        let passkey = try ProgramPaths.built("passkey")
        func complete(_ words: [String]) throws -> [String] {
            let line = ([passkey] + words).joined(separator: " ")
            let script = """
                source <("\(passkey)" --generate-completion-script bash)
                COMP_WORDS=("\(passkey)" \(words.map { "'\($0)'" }.joined(separator: " ")))
                COMP_CWORD=\(words.count)
                COMP_LINE='\(line)'
                COMP_POINT=${#COMP_LINE}
                _passkey
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try ProcessResult.run("/bin/bash", ["-c", script], standardInput: nil, environment: harness.environment,
                                               scratch: harness.home, timeout: 30)
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput.split(separator: "\n").map(String.init).sorted()
        }
        #expect(try complete(["logout", "wo"]) == ["wolf", "work"])
        #expect(try complete(["login", "t"]) == ["team"])
        #expect(try complete(["token", "rm", ""]) == ["team", "wolf", "work"])
    }
}
