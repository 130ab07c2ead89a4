import Harness
import Testing
import TestSupport

/// `passkey demo --pin-stdin` (issues 26 and 28): a script can run the
/// demo on a PIN-protected key. With the software authenticator the demo
/// gives its keys that PIN first, so every chapter runs as on a real
/// PIN-protected key: each command that may touch the key gets the PIN.
@Suite(.ownThreads) struct DemoPINStdinTests {
    @Test func theDemoRunsOnAPINProtectedKeyFromAScript() throws {
        let harness = try AgentHarness()
        let demo = try harness.passkey(["demo", "--no-card", "--pin-stdin"], standardInput: "314159\n", timeout: 180)
        #expect(demo.status == 0, "\(demo.standardError)")
        #expect(demo.standardOutput.components(separatedBy: "✔ Verified:").count == PasswordlessCeremonyTests.demoChapters,
                "every chapter but the card's verified its steps: \(demo.standardOutput)")
        #expect(!demo.standardOutput.contains("314159") && !demo.standardError.contains("314159"), "the PIN is never shown")
    }

    @Test func withoutThePINTheKeyCannotBeUsedFromAScript() throws {
        // The same PIN-protected run needs the PIN: --pin-stdin with nothing on standard input is a clear error.
        let harness = try AgentHarness()
        let demo = try harness.passkey(["demo", "--chapter", "2", "--no-card", "--pin-stdin"], standardInput: "", timeout: 120)
        #expect(demo.status != 0)
        #expect(demo.standardError.contains("--pin-stdin was given but standard input holds no security key PIN"), "\(demo.standardError)")
    }
}
