import Foundation
import Testing
import TestSupport

/// The light `passkey` reads the plain forms of `status` and `token get`
/// without ArgumentParser (PasskeyCLI/Runtime/ScriptedForm.swift); `passkey-local`
/// always parses with ArgumentParser. Every form the reader accepts, and the
/// near misses it must leave to ArgumentParser, give the same output and exit
/// status through both programs, with an agent and without one.
@Suite(.ownThreads) struct ScriptedFormTests {
    /// Forms the reader takes. `--min-valid 40000000` is more than a year,
    /// which the agent refuses: a value lost on the way would show.
    static let accepted: [[String]] = [
        ["status"], ["status", "--json"], ["status", "--no-agent"], ["status", "--json", "--no-agent"],
        ["status", "--no-agent", "--json"],
        ["token", "get", "work"], ["token", "get", "work", "--json"], ["token", "get", "--json", "work"],
        ["token", "get", "work", "--min-valid", "10"], ["token", "get", "--min-valid", "10", "work"],
        ["token", "get", "work", "--min-valid=10"], ["token", "get", "--min-valid=0010", "--json", "work"],
        ["token", "get", "work", "--min-valid", "40000000"], ["token", "get", "work", "--min-valid=40000000"],
        ["token", "get", "work", "--min-valid", "0"],
        ["token", "get", "nobody"], ["token", "get", "nobody", "--json"], ["token", "get", "help"],
        ["token", "get", "work", "--no-agent"], ["token", "get", "--no-agent", "--json", "work", "--min-valid", "5"],
        ["token", "get", "wörk space"],
    ]

    /// Forms left to ArgumentParser: help, terminators, repeats, signs, missing or extra values.
    static let leftToArgumentParser: [[String]] = [
        [], ["status", "extra"], ["status", "--json", "--json"], ["status", "--min-valid", "5"], ["status", "-h"],
        ["status", "--help"], ["status", "--jso"], ["--json", "status"],
        ["token", "get"], ["token", "get", "work", "other"], ["token", "get", "--", "work"], ["token", "get", "-work"],
        ["token", "get", ""], ["token", "get", "work", "--min-valid"], ["token", "get", "work", "--min-valid", "-5"],
        ["token", "get", "work", "--min-valid=-5"], ["token", "get", "work", "--min-valid=+5"],
        ["token", "get", "work", "--min-valid", "ten"], ["token", "get", "work", "--min-valid=", "--json"],
        ["token", "get", "work", "--min-valid", "5", "--min-valid", "6"], ["token", "get", "work", "--help"],
        ["token", "get", "work", "--min-valid", "99999999999999999999"], ["token", "get", "work", "--no-agent", "--no-agent"],
        ["token", "--json", "get", "work"], ["token", "list"],
    ]

    let harness: AgentHarness
    init() throws { harness = try AgentHarness() }

    private func run(_ program: String, _ arguments: [String], stdin: String? = nil) throws -> ProcessResult {
        try ProcessResult.run(try ProgramPaths.built(program), arguments, standardInput: stdin,
                              environment: harness.environment, scratch: harness.home, timeout: 60)
    }

    /// The agent's uptime moves between two runs, and an in-process status
    /// reports its own process's pid: hide both.
    private static func steady(_ text: String) -> String {
        text.replacingOccurrences(of: #"up [0-9]+ s"#, with: "up N s", options: .regularExpression)
            .replacingOccurrences(of: #""uptimeSeconds" : [0-9.e+-]+"#, with: #""uptimeSeconds" : N"#, options: .regularExpression)
            .replacingOccurrences(of: #""pid" : [0-9]+"#, with: #""pid" : N"#, options: .regularExpression)
    }

    private func expectSameBothWays(_ forms: [[String]]) throws {
        for form in forms {
            let light = try run("passkey", form)
            let reference = try run("passkey-local", form)
            #expect(light.status == reference.status, "passkey \(form): status \(light.status) vs \(reference.status)")
            #expect(Self.steady(light.standardOutput) == Self.steady(reference.standardOutput), "passkey \(form): standard output")
            #expect(light.standardError == reference.standardError, "passkey \(form): standard error")
        }
    }

    @Test("with an agent: each form prints the same and exits the same through passkey and passkey-local")
    func sameWithAnAgent() throws {
        try harness.start()
        #expect(try run("passkey", ["vault", "init", "--slot", "fido2", "--device", "virtual"]).status == 0)
        let document = #"{"access_token":"scripted-token","token_type":"Bearer","expires_in":86400,"#
            + #""issuer":"https://id.example.org","client_id":"cli","token_endpoint":"https://id.example.org/token"}"#
        for account in ["work", "help", "wörk space"] {
            #expect(try run("passkey", ["token", "put", account], stdin: document).status == 0)
        }
        #expect(try run("passkey", ["token", "get", "work"]).standardOutput == "scripted-token\n")
        try expectSameBothWays(Self.accepted + Self.leftToArgumentParser)
    }

    @Test("without an agent: each form hands over or fails the same way")
    func sameWithoutAnAgent() throws {
        try expectSameBothWays(Self.accepted + Self.leftToArgumentParser)
    }
}
