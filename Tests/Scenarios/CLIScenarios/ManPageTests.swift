import Foundation
import Testing
import TestSupport

/// scripts/manpage's page for the built passkey: its FILES place the vault
/// where `vault init` really puts it, its ENVIRONMENT names the variables
/// passkey reads (BROWSER, PASSKEY_PINENTRY, PCSCLITE_CSOCK_NAME, kubectl's
/// KUBERNETES_EXEC_INFO) and the one it sets (PASSKEY_ACCESS_TOKEN), and its
/// EXIT STATUS has every status of `passkey --help`.
@Suite(.ownThreads) struct ManPageTests {
    @Test func filesEnvironmentAndExitStatusesMatchTheProgram() throws {
        let harness = try AgentHarness()
        let page = try ProcessResult.run("/usr/bin/env", ["python3", Interop.packageRoot + "/scripts/manpage", try ProgramPaths.built("passkey")],
                                         standardInput: nil, environment: ProcessInfo.processInfo.environment, scratch: harness.home, timeout: 60)
        #expect(page.status == 0, "\(page.standardError)")
        let text = page.standardOutput
        func section(_ name: String) -> String {
            guard let start = text.range(of: ".SH \(name)\n") else { return "" }
            let rest = text[start.upperBound...]
            return String(rest[..<(rest.range(of: "\n.SH ")?.lowerBound ?? rest.endIndex)])
        }
        let environment = section("ENVIRONMENT"), files = section("FILES"), statuses = section("EXIT STATUS")
        for variable in ["PASSKEY_AGENT_SOCK", "BROWSER", "PASSKEY_PINENTRY", "PCSCLITE_CSOCK_NAME", "XDG_DATA_HOME", "XDG_CONFIG_HOME",
                         "KUBERNETES_EXEC_INFO", "PASSKEY_ACCESS_TOKEN"] {
            #expect(environment.contains(".B \(variable)\n"), "ENVIRONMENT lacks \(variable)")
        }
        #expect(files.contains(".I ~/.local/share/passkey-agent/vault/\n"), "\(files)")
        #expect(files.contains("accounts/ACCOUNT.toml"))
        for status in ["0", "4", "7", "12", "13", "64"] { #expect(statuses.contains(".B \(status)\n"), "EXIT STATUS lacks \(status)") }

        // The vault is where the page says: XDG_DATA_HOME/passkey-agent/vault.
        let created = try harness.passkey(["vault", "init", "--slot", "fido2", "--device", "virtual", "--no-agent"])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(FileManager.default.fileExists(atPath: harness.home + "/data/passkey-agent/vault/header"))
    }

    /// passkey-demo is a program of its own (`passkey demo` runs it): its usage names it.
    @Test func passkeyDemoHelpNamesItself() throws {
        let harness = try AgentHarness()
        let help = try ProcessResult.run(try ProgramPaths.built("passkey-demo"), ["--help"], standardInput: nil,
                                         environment: harness.environment, scratch: harness.home, timeout: 30)
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("USAGE: passkey-demo "), "\(help.standardOutput)")
    }
}
