import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The legitimate Okta + Beyond Identity sign-in as a desktop runs it
/// (issue 23's "Done means"): the browser follows Okta's routing to the
/// BI-like IdP, which sends it to the invoke URL; the browser hands that to
/// `gio open`, which reaches the agent over D-Bus (`org.freedesktop.Application.Open`);
/// the person confirms in pinentry, seeing the RP ID and the trusted
/// application; the key signs; the agent follows Okta's callback through the
/// application's hosts, and the waiting `passkey login` lands alice's tokens.
@Suite(.ownThreads) struct DesktopSignInThroughDBusTests {
    @Test("Okta routed to the BI-like IdP: the invoke URL goes through gio open and D-Bus, the person confirms, alice's tokens land")
    func signInThroughGioOpen() throws {
        let directory = try TemporaryDirectory.make(prefix: "session-bus")
        defer { TemporaryDirectory.remove(directory) }
        let bus = try SessionBus(runtimeDirectory: directory, environment: ProcessInfo.processInfo.environment, directory: directory)
        let provider = try LoginProvider.devserver()
        let agent = try VaultAgent(extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], person: .allow)
        let home = agent.harness.home
        try FileManager.default.createDirectory(atPath: home + "/config/passkey-agent", withIntermediateDirectories: true)
        try ("[device]\ndefault = \"virtual\"\n\n" + InvokeThroughAgentTests.trustedApplication(provider))
            .write(toFile: home + "/config/passkey-agent/config.toml", atomically: true, encoding: .utf8)
        chmod(home + "/config/passkey-agent/config.toml", 0o600)
        try agent.start()
        try agent.initializeVault()
        let log = try #require(agent.harness.process)
        try log.waitUntil("the agent owns the handler's name") {
            log.standardError.contains("serving \(DesktopHandlerThroughDBusTests.applicationID)")
        }
        let launcher = try DesktopHandlerThroughDBusTests.installHandler(agent).merging(bus.environment) { _, bus in bus }

        // A passkey for alice, bound through the desktop handler too.
        let identity = try provider.adminPOST(InvokeThroughAgentTests.bi + "/identities",
                                              #"{"identity":{"display_name":"Alice","traits":{"username":"alice","primary_email_address":"alice@example.test"}}}"#,
                                              scratch: home)
        let id = try #require(identity["id"] as? String)
        let job = try provider.adminPOST(InvokeThroughAgentTests.bi + "/identities/\(id)/credential-binding-jobs",
                                         #"{"job":{"delivery_method":"RETURN"}}"#, scratch: home)
        let bindURL = try provider.location(of: try #require(job["credential_binding_link"] as? String), scratch: home)
        let bound = try ProcessResult.run("/usr/bin/env", ["gio", "open", bindURL], standardInput: nil, environment: launcher,
                                          scratch: home, timeout: 60)
        #expect(bound.status == 0, "\(bound.standardError)")
        try log.waitUntil("the passkey is bound", timeout: 60) {
            log.standardError.contains("bound a passkey for Alice") || log.standardError.contains("failed:")
        }
        #expect(log.standardError.contains("bound a passkey for Alice"), "\(log.standardError)")

        // The sign-in: the browser (the scripted person, following redirects)
        // hands the invoke URL to gio open; `passkey login` waits for its callback.
        let consentLog = home + "/consent.log"
        let login = try agent.harness.passkey(
            ["login", "okta", "--issuer", provider.issuer, "--client-id", "cli", "--idp", "0oa-bi-dev", "--flow", "browser"],
            extraEnvironment: InvokeThroughAgentTests.handlerBrowser().merging(launcher) { mine, _ in mine }
                .merging(["CONSENT_OPEN": "gio", "CONSENT_LOG": consentLog]) { _, open in open },
            timeout: 120)
        #expect(login.status == 0, "\(login.standardError)\n\(TextFile.read(consentLog))\n\(log.standardError)")
        #expect(TextFile.read(consentLog).contains("opening an app URL with gio open"), "\(TextFile.read(consentLog))")
        let token = try agent.passkey(["token", "get", "okta"])
        #expect(token.status == 0, "\(token.standardError)")
        #expect(jwtClaims(token.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))?["sub"] as? String == "alice")

        let shown = try #require(agent.pinentry).confirmations
        #expect(shown.count == 2, "asked for the binding and for the sign-in: \(shown)")
        #expect(shown.last?.hasPrefix("Sign in to bi.passkey.test with your security key?") == true, "\(shown)")
    }
}
