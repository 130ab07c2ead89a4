import Foundation
import Testing
import TestSupport

/// With `--json`, a command line ArgumentParser refuses is answered as every
/// other failure under `--json` is: `{"error":{"kind":"usage","message":…}}`
/// on stdout, nothing on stderr, exit status 64. The light `passkey` leaves
/// these command lines to ArgumentParser (ScriptedForm reads only the plain
/// forms), so both programs are run.
@Suite(.ownThreads) struct JSONUsageErrorTests {
    let harness: AgentHarness
    init() throws { harness = try AgentHarness() }

    private func run(_ program: String, _ arguments: [String]) throws -> ProcessResult {
        try ProcessResult.run(try ProgramPaths.built(program), arguments, standardInput: nil,
                              environment: harness.environment, scratch: harness.home, timeout: 60)
    }

    static let wrongCommandLines: [[String]] = [
        ["token", "get", "--json"],                                   // a missing argument
        ["status", "--json", "--bogus"],                              // an unknown option
        ["token", "get", "work", "--json", "--min-valid", "ten"],     // a value that is no number
        ["token", "get", "work", "other", "--json"],                 // an extra argument
        ["--json", "status"],                                         // --json where the root takes none
        ["signin", "--json"],                                         // refused by the command's validate()
        ["webauthn", "create", "--json", "--device", "virtual"],      // a missing option
    ]

    @Test("a usage error under --json is a JSON error object with exit status 64", arguments: wrongCommandLines)
    func usageErrorIsJSON(_ arguments: [String]) throws {
        for program in ["passkey", "passkey-local"] {
            let result = try run(program, arguments)
            #expect(result.status == 64, "\(program) \(arguments)")
            #expect(result.standardError.isEmpty, "\(program) \(arguments): \(result.standardError)")
            let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            #expect(object.map { Set($0.keys) } == ["error"], "\(program) \(arguments): \(result.standardOutput)")
            let error = object?["error"] as? [String: Any]
            #expect(error?["kind"] as? String == "usage")
            #expect((error?["message"] as? String)?.isEmpty == false)
        }
    }

    @Test("the same shape as a failure of the verb itself under --json")
    func sameShapeAsOtherJSONErrors() throws {
        let usage = try run("passkey", ["token", "get", "--json"])
        let locked = try run("passkey", ["token", "get", "work", "--json"])
        #expect(locked.status == 7, "no vault: \(locked.standardError)")
        func errorMembers(_ result: ProcessResult) throws -> Set<String> {
            let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
            return Set((object?["error"] as? [String: Any] ?? [:]).keys)
        }
        #expect(try errorMembers(usage) == errorMembers(locked))
        #expect(try errorMembers(usage) == ["kind", "message"])
    }

    @Test("without --json (or with it only after --) a usage error stays text on stderr")
    func withoutJSONItStaysText() throws {
        for program in ["passkey", "passkey-local"] {
            let text = try run(program, ["token", "get"])
            #expect(text.status == 64)
            #expect(text.standardOutput.isEmpty)
            #expect(text.standardError.hasPrefix("Error: Missing expected argument '<account>'"), "\(text.standardError)")

            let afterTerminator = try run(program, ["token", "get", "--", "--json"])
            #expect(afterTerminator.status == 7, "the account \"--json\", and no vault: \(afterTerminator.standardError)")
            #expect(afterTerminator.standardOutput.isEmpty)
        }
    }
}
