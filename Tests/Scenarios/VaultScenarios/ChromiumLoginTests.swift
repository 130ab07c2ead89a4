import Foundation
import Testing
import TestSupport

/// A real browser at the login listener (issue 25): Debian's headless
/// Chromium, driven through WebDriver by Tests/Interop/chromium_browser.py,
/// plays the person — the launch page `passkey login` hands it, the
/// devserver's sign-in page, the redirect to the agent's loopback listener
/// with whatever a real browser adds (preconnects, /favicon.ico,
/// keep-alive), and a reload of the callback page — and approves a device
/// code on the devserver's page. The Python stand-ins of the other login
/// tests would not notice a listener that real browsers trip over.
@Suite(.ownThreads) struct ChromiumLoginTests {
    /// Screenshots of each page, kept for a person to look at.
    static func shots(_ name: String) throws -> String {
        let folder = Interop.packageRoot + "/.build/test-artifacts/chromium/" + name
        TemporaryDirectory.remove(folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func browserEnvironment(shots: String, log: String) -> [String: String] {
        ["BROWSER": "\(Interop.python) \(Interop.packageRoot)/Tests/Interop/chromium_browser.py",
         "CHROMIUM_SHOTS": shots, "CHROMIUM_LOG": log, "CHROMIUM_USER": "alice", "DISPLAY": ":99"]
    }

    @Test("browser flow in Chromium: launch page, sign-in page, redirect to the listener, a reload; the login lands")
    func browserFlow() throws {
        let provider = try LoginProvider.devserver()
        let agent = try LoginThroughAgentTests.agent()
        let shots = try Self.shots("browser-flow")
        let log = agent.harness.home + "/chromium.log"
        let login = try agent.harness.passkey(
            ["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
            extraEnvironment: Self.browserEnvironment(shots: shots, log: log), timeout: 120)
        #expect(login.status == 0, "\(login.standardError)\n\(TextFile.read(log))")
        #expect(login.standardOutput.contains("alice"), "\(login.standardOutput)")
        let token = try agent.passkey(["token", "get", "work"])
        #expect(token.status == 0, "\(token.standardError)")
        #expect(jwtClaims(token.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))?["sub"] as? String == "alice")
        // The login ends when the callback arrives; the browser goes on to
        // show the page and reload it. Wait (bounded) for it to finish.
        let deadline = ContinuousClock.now + .seconds(60)
        while !TextFile.read(log).contains("done\n"), ContinuousClock.now < deadline { usleep(50_000) }
        let steps = TextFile.read(log)
        #expect(steps.contains("done\n"), "the browser did not finish within 60 s: \(steps)")
        #expect(steps.contains("callback page:") && steps.contains("reloaded the callback page"), "\(steps)")
        #expect(!steps.contains("failed:"), "\(steps)")
        let pictures = try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }
        #expect(pictures.count >= 3, "screenshots: \(pictures)")
    }

    @Test("device flow: Chromium approves the user code on the provider's page; the login lands")
    func deviceFlow() throws {
        let provider = try LoginProvider.devserver(["--device-interval", "1"])
        let agent = try LoginThroughAgentTests.agent()
        let shots = try Self.shots("device-flow")
        let log = agent.harness.home + "/chromium.log"
        let login = try RunningProcess(try ProgramPaths.built("passkey"),
                                       ["login", "tv", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "device"],
                                       environment: agent.harness.environment, directory: agent.harness.home, name: "login-device")
        try login.waitUntil("the device code is shown", timeout: 30) { login.standardError.contains("Waiting") }
        let complete = try #require(login.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("http") && $0.contains("user_code=") })
        let approve = try ProcessResult.run(Interop.python, [Interop.packageRoot + "/Tests/Interop/chromium_browser.py", "--activate", complete],
                                            standardInput: nil,
                                            environment: ProcessInfo.processInfo.environment.merging(
                                                Self.browserEnvironment(shots: shots, log: log)) { $1 },
                                            scratch: agent.harness.home, timeout: 120)
        #expect(approve.status == 0, "\(approve.standardError)\n\(TextFile.read(log))")
        #expect(login.waitForExit(timeout: 60) == 0, "\(login.standardError)")
        let token = try agent.passkey(["token", "get", "tv"])
        #expect(token.status == 0, "\(token.standardError)")
        let pictures = try FileManager.default.contentsOfDirectory(atPath: shots).filter { $0.hasSuffix(".png") }
        #expect(pictures.count >= 2, "screenshots: \(pictures)")
    }
}
