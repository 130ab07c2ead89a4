import AgentCore
import AgentProtocol
import Harness
import Locking
import Logging
import Testing
import TestSupport
@testable import DesktopBus

/// `DesktopBus.start` in this process: over a real private session bus, with
/// a real `AgentCore` in temporary directories, a link a launcher opens runs
/// the `invoke` method; its failure is logged without the link's query and
/// shown to the person through pinentry (a scripted one, gated on a FIFO so
/// the test awaits the moment it is asked).
@Suite(.ownThreads) struct DesktopHandlerTests {
    /// Log lines as they are written, as an event stream.
    struct StreamingLog: LogHandler {
        let lines: AsyncStream<String>.Continuation
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { lines.yield("\(event.level): \(event.message)") }
    }

    @Test("no session bus in the environment: the handler is off and nothing connects")
    func withoutABus() throws {
        let harness = try AgentHarness()
        let core = try AgentCore(environment: harness.environment, runningAsAgent: false)
        let logger = Logger(label: "desktop-bus-test") { _ in SwiftLogNoOpLogHandler() }
        #expect(DesktopBus.start(core: core, logger: logger, environment: harness.environment) == false)
    }

    @Test("a link opened on the bus runs invoke; its failure is logged without the query and shown to the person",
          .timeLimit(.minutes(2)))
    func aFailedLinkIsLoggedAndShown() async throws {
        let bus = try PrivateBus()
        let harness = try AgentHarness()
        let pinentry = try ScriptedPinentry(in: harness.home, answer: .allow)
        let gate = harness.home + "/notice-gate"
        try ScriptedPinentry.makeGate(at: gate)
        try pinentry.answer(.allow, gate: gate)
        let environment = harness.environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address, "PASSKEY_PINENTRY": pinentry.program]) { _, new in new }
        let core = try AgentCore(environment: environment, runningAsAgent: false)
        let (lines, written) = AsyncStream<String>.makeStream()
        let logger = Logger(label: "desktop-bus-test") { _ in StreamingLog(lines: written) }
        try #require(DesktopBus.start(core: core, logger: logger, environment: environment), "the handler serves on the private bus")

        let client = try BusClient(address: bus.address)
        #expect(try client.owner(of: DesktopApplication.id) != nil)
        let link = "https://example.org/not-an-invoke-link?request=s3cret-request"
        let answer = try client.open([link], on: DesktopApplication.id, path: DesktopApplication.objectPath)
        #expect(answer.error == nil, "the launcher is answered at once: \(answer)")

        var seen: [String] = []
        for await line in lines {
            seen.append(line)
            if line.contains("failed:") { break }
        }
        #expect(seen.contains { $0.contains("D-Bus: opening https://example.org/not-an-invoke-link") })
        let failure = try #require(seen.last)
        #expect(failure.hasPrefix("error: D-Bus: https://example.org/not-an-invoke-link failed: "), "\(failure)")
        #expect(!seen.contains { $0.contains("s3cret") }, "the link's query is never logged: \(seen)")

        // The person is told: the notice reaches pinentry (opening the gate waits for its CONFIRM).
        try ScriptedPinentry.openGate(gate)
        let shown = try #require(pinentry.confirmations.last)
        #expect(shown.hasPrefix("The link you opened (https://example.org/not-an-invoke-link) did not go through:\n"), "\(shown)")
        #expect(!shown.contains("s3cret"))
    }

    @Test("the outcome of a link, as the log says it")
    func describe() {
        let passkey = BoundPasskeyReport(passkeyId: "cred-1", identityId: "id-1", username: "alice", displayName: "Alice",
                                         postBindingRedirectURI: nil)
        #expect(DesktopInvokes.describe(InvokeResult(kind: .bind, passkey: passkey)) == "bound a passkey for Alice (cred-1)")
        var unnamed = passkey
        unnamed.displayName = nil
        #expect(DesktopInvokes.describe(InvokeResult(kind: .bind, passkey: unnamed)) == "bound a passkey for alice (cred-1)")
        #expect(DesktopInvokes.describe(InvokeResult(kind: .bind)) == "bound a passkey for the identity (?)")
        #expect(DesktopInvokes.describe(InvokeResult(kind: .authenticate, account: "work"))
            == "signed in with the passkey; the login of \"work\" is finishing")
        #expect(DesktopInvokes.describe(InvokeResult(kind: .redirect, account: "work")) == "handed the redirect to the login of \"work\"")
    }
}
