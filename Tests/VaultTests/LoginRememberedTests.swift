import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a second `passkey login ACCOUNT` keeps from the first (issue 26's
/// rough edges): the `--idp` it was routed to, and Okta IDX's username.
@Suite struct LoginRememberedTests {
    @Test("--idp is saved: a later login routes there again, auto without a display pastes rather than dropping it, device is refused")
    func idpRemembered() throws {
        let (provider, agent) = try InvokeThroughAgentTests.setUp()
        try InvokeThroughAgentTests.bindAlice(provider, agent)
        let first = try agent.harness.passkey(
            ["login", "okta", "--issuer", provider.issuer, "--client-id", "cli", "--idp", "0oa-bi-dev", "--flow", "browser"],
            extraEnvironment: InvokeThroughAgentTests.handlerBrowser(), timeout: 90)
        #expect(first.status == 0, "\(first.standardError)")
        let settings = try String(contentsOfFile: agent.harness.home + "/config/passkey-agent/accounts/okta.toml", encoding: .utf8)
        #expect(settings.contains("idp = \"0oa-bi-dev\""), "\(settings)")

        // No display, no --idp: auto would take the device grant (the devserver
        // offers it), which cannot carry idp; the login pastes instead and
        // its authorization request routes to the saved IdP.
        var environment = agent.harness.environment
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        let again = try RunningProcess(try ProgramPaths.built("passkey"), ["login", "okta", "--flow", "auto"],
                                       environment: environment, directory: agent.harness.home, name: "login-again")
        try again.waitUntil("the authorization URL is shown", timeout: 30) { again.standardError.contains("Paste that whole address") }
        let url = try #require(again.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(provider.issuer + "/v1/authorize?") })
        #expect(url.contains("idp=0oa-bi-dev"), "\(url)")
        #expect(try agent.passkey(["login", "okta", "--cancel"]).status == 0)
        #expect(again.waitForExit(timeout: 30) != 0)

        let device = try agent.passkey(["login", "okta", "--flow", "device"])
        #expect(device.status != 0)
        #expect(device.standardError.contains("--idp"), "\(device.standardError)")
    }

    @Test("okta-idx: the username is saved; a login again without a terminal and without --username signs in")
    func idxUsernameRemembered() throws {
        let (provider, agent) = try IDXLoginThroughAgentTests.setUp()
        let enrolled = try IDXLoginThroughAgentTests.login(agent, provider, ["--username", "bob"])
        #expect(enrolled.status == 0, "\(enrolled.standardError)")
        let settings = try String(contentsOfFile: agent.harness.home + "/config/passkey-agent/accounts/okta.toml", encoding: .utf8)
        #expect(settings.contains("username = \"bob\""), "\(settings)")

        // The harness runs passkey with no terminal: before, this failed asking for --username.
        let again = try agent.harness.passkey(["login", "okta", "--device", "virtual"], timeout: 90)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(again.standardOutput.contains("Signed in"), "\(again.standardOutput)")
    }
}
