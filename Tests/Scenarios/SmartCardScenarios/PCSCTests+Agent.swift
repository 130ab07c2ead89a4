import Foundation
import Testing
import TestSupport

/// The card verbs run in the agent when it answers, with the same results as in-process.
extension PCSCTests {
    @Test("passkey card list, setup and pin change go through the agent and answer as in-process")
    func cardVerbsThroughTheAgent() throws {
        let fixture = try PCSCFixture()
        let agent = try AgentHarness(extraEnvironment: ["PCSCLITE_CSOCK_NAME": try PCSCHarness.shared().socketPath])
        let process = try agent.start()

        let viaAgent = try agent.passkey(["card", "list", "--json"])
        let inProcess = try agent.passkey(["card", "list", "--json", "--no-agent"])
        #expect(viaAgent.status == 0, "\(viaAgent.standardError)")
        #expect(viaAgent.standardOutput == inProcess.standardOutput)
        #expect(viaAgent.standardOutput.contains(fixture.reader))

        let setup = try agent.passkey(["card", "setup", "--reader", fixture.reader, "--pin-stdin", "--yes"],
                                      standardInput: "123456\n")
        #expect(setup.status == 0, "\(setup.standardError)")
        let again = try agent.passkey(["card", "setup", "--reader", fixture.reader, "--pin-stdin", "--yes"],
                                      standardInput: "123456\n")
        #expect(again.status == 10, "an existing 9D key is not replaced without --force")
        #expect(again.standardError.contains("--force"))

        let wrong = try agent.passkey(["card", "pin", "change", "--reader", fixture.reader, "--pin-stdin"],
                                      standardInput: "000000\n654321\n")
        #expect(wrong.status == 6)
        #expect(wrong.standardError.contains("2 tries left"), "\(wrong.standardError)")
        #expect(!wrong.standardError.contains("000000") && !wrong.standardError.contains("654321"))
        let right = try agent.passkey(["card", "pin", "change", "--reader", fixture.reader, "--pin-stdin"],
                                      standardInput: "123456\n654321\n")
        #expect(right.status == 0, "\(right.standardError)")
        #expect(right.standardOutput.contains("3 tries left"))

        for method in ["card.list", "card.plan", "card.setup", "card.changePIN"] {
            #expect(process.standardError.contains(method), "\(method) ran in the agent")
        }
        #expect(!process.standardError.contains("654321"), "no secret in the agent's log")
    }
}
