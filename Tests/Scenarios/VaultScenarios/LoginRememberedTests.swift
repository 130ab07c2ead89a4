import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a second `passkey login ACCOUNT` keeps from the first (issue 26's
/// rough edges): the `--idp` it was routed to, and Okta IDX's username.
@Suite(.ownThreads) struct LoginRememberedTests {
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

/// `passkey login --via okta-idx --pin-stdin`: a PIN-protected key from a script.
@Suite(.ownThreads) struct LoginPINStdinTests {
    @Test("okta-idx with a PIN-protected key: without a terminal the error names --pin-stdin; with it the key enrols and signs in")
    func pinFromStandardInput() throws {
        // The agent's key refuses every finger, so user verification needs the
        // PIN; the PIN and the vault are made first, in-process, by an accepted finger.
        let agent = try VaultAgent(extraEnvironment: ["PASSKEY_VIRTUAL_VERIFICATION": "deny"])
        let acceptedFinger = ["PASSKEY_VIRTUAL_VERIFICATION": "approve"]
        try VaultAgent.require(try agent.harness.passkey(["pin", "set", "--device", "virtual", "--pin-stdin", "--no-agent"],
                                                         standardInput: "246810\n", extraEnvironment: acceptedFinger), "pin set")
        try VaultAgent.require(try agent.harness.passkey(["vault", "init", "--slot", "fido2", "--device", "virtual", "--no-agent"],
                                                         extraEnvironment: acceptedFinger), "vault init")
        let users = agent.harness.home + "/idx-users"
        try "alice:correct horse battery\nbob\n".write(toFile: users, atomically: true, encoding: .utf8)
        chmod(users, 0o600)
        let provider = try LoginProvider.devserver(["--idx-users-file", users, "--idx-user-verification", "required"])
        try agent.start()
        try VaultAgent.require(try agent.harness.passkey(["unlock", "--slot", "fido2", "--device", "virtual", "--pin-stdin"],
                                                         standardInput: "246810\n"), "unlock")

        let noPIN = try IDXLoginThroughAgentTests.login(agent, provider, ["--username", "bob"])
        #expect(noPIN.status != 0)
        #expect(noPIN.standardError.contains("--pin-stdin"), "\(noPIN.standardError)")

        let base = ["--via", "okta-idx", "--issuer", provider.issuer, "--client-id", "cli", "--device", "virtual"]
        let enrolled = try agent.harness.passkey(["login", "okta"] + base + ["--username", "bob", "--pin-stdin"],
                                                 standardInput: "246810\n", timeout: 90)
        #expect(enrolled.status == 0, "\(enrolled.standardError)")
        // Alice has a password too: the password first, then the PIN.
        let alice = try agent.harness.passkey(["login", "alice"] + base + ["--username", "alice", "--pin-stdin", "--password-stdin"],
                                              standardInput: "correct horse battery\n246810\n", timeout: 90)
        #expect(alice.status == 0, "\(alice.standardError)")
        let again = try agent.harness.passkey(["login", "okta", "--device", "virtual", "--pin-stdin"], standardInput: "246810\n", timeout: 90)
        #expect(again.status == 0, "\(again.standardError)")
    }
}
