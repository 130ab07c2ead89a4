import Foundation
import Testing
import TestSupport

/// `install-handler --uninstall` gives each scheme back the handler it had
/// in the user's mimeapps.list (where Debian's real `xdg-mime default`
/// records ours), or removes our entry when there was none — never leaving a
/// default that names the removed .desktop file.
@Suite(.ownThreads) struct InstallHandlerMimeAppsTests {
    static let ours = "io.github.passkey_agent.Invoke.desktop"

    @Test("a scheme that had another handler gets it back; other associations are untouched")
    func restoresThePreviousHandler() throws {
        let agent = try VaultAgent()
        let mimeapps = agent.harness.home + "/config/mimeapps.list"
        try FileManager.default.createDirectory(atPath: agent.harness.home + "/config", withIntermediateDirectories: true)
        try "[Default Applications]\ntext/html=firefox.desktop\nx-scheme-handler/io.github.passkey-agent=other-handler.desktop\n"
            .write(toFile: mimeapps, atomically: true, encoding: .utf8)

        let installed = try agent.harness.passkey(["install-handler"])
        #expect(installed.status == 0, "\(installed.standardError)")
        #expect(try String(contentsOfFile: mimeapps, encoding: .utf8).contains("x-scheme-handler/io.github.passkey-agent=\(Self.ours)"))
        // A second install must not record itself as the handler to restore.
        #expect(try agent.harness.passkey(["install-handler"]).status == 0)

        let removed = try agent.harness.passkey(["install-handler", "--uninstall"])
        #expect(removed.status == 0, "\(removed.standardError)")
        let after = try String(contentsOfFile: mimeapps, encoding: .utf8)
        #expect(after.contains("x-scheme-handler/io.github.passkey-agent=other-handler.desktop"), "\(after)")
        #expect(after.contains("text/html=firefox.desktop"))
        #expect(!after.contains(Self.ours), "\(after)")
        #expect(!FileManager.default.fileExists(atPath: agent.harness.home + "/state/passkey-agent/previous-scheme-handlers"))
    }

    @Test("a scheme that had no handler loses ours: no line names the removed file")
    func removesOurDefault() throws {
        let agent = try VaultAgent()
        let mimeapps = agent.harness.home + "/config/mimeapps.list"
        let installed = try agent.harness.passkey(["install-handler", "--scheme", "com.example.one", "--scheme", "com.example.two"])
        #expect(installed.status == 0, "\(installed.standardError)")
        #expect(try String(contentsOfFile: mimeapps, encoding: .utf8).contains("x-scheme-handler/com.example.two=\(Self.ours)"))

        let removed = try agent.harness.passkey(["install-handler", "--uninstall"])
        #expect(removed.status == 0, "\(removed.standardError)")
        let after = (try? String(contentsOfFile: mimeapps, encoding: .utf8)) ?? ""
        #expect(!after.contains(Self.ours), "\(after)")
        let query = try ProcessResult.run("/usr/bin/env", ["xdg-mime", "query", "default", "x-scheme-handler/com.example.one"], standardInput: nil,
                                          environment: agent.harness.environment, scratch: agent.harness.home, timeout: 30)
        #expect(!query.standardOutput.contains(Self.ours), "\(query.standardOutput)")
    }
}
