import Foundation
import Testing
import TestSupport

/// Providers that advertise less than the devserver usually does: one whose
/// discovery names neither a revocation nor a device endpoint, the first
/// named only in its RFC 8414 metadata (django-oauth-toolkit does so), the
/// second nowhere (GitLab, django-oauth-toolkit). The real CLI and agent
/// against `passkey-devserver --omit-from-discovery/--omit-from-metadata`.
@Suite(.ownThreads) struct LoginWithLessAdvertisedTests {
    static let lessAdvertised = ["--omit-from-discovery", "revocation_endpoint", "--omit-from-discovery", "device_authorization_endpoint",
                                 "--omit-from-metadata", "device_authorization_endpoint"]

    @Test("logout revokes at the endpoint only RFC 8414 metadata names: the provider then refuses the refresh token")
    func logoutRevokesThroughRFC8414Metadata() throws {
        let provider = try LoginProvider.devserver(["--access-token-lifetime", "30"] + Self.lessAdvertised)
        let agent = try LoginThroughAgentTests.agent()
        let login = try agent.harness.passkey(
            ["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
            extraEnvironment: provider.browserEnvironment(), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")

        let kept = try agent.passkey(["logout", "work", "--keep"])
        #expect(kept.status == 0, "\(kept.standardError)")
        #expect(kept.standardOutput.contains("Revoked the refresh token and access token"), "\(kept.standardOutput)\(kept.standardError)")
        #expect(!kept.standardError.contains("no revocation endpoint"))
        // The provider recorded it: the kept refresh token is refused.
        let refused = try agent.passkey(["token", "get", "work", "--min-valid", "60"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("invalid_grant"), "\(refused.standardError)")
    }

    @Test("--revocation-endpoint given at login is saved and used by logout at a provider that advertises none")
    func logoutRevokesAtTheGivenEndpoint() throws {
        let provider = try LoginProvider.devserver(["--access-token-lifetime", "30", "--omit-from-discovery", "revocation_endpoint",
                                                    "--omit-from-metadata", "revocation_endpoint"])
        let agent = try LoginThroughAgentTests.agent()
        let login = try agent.harness.passkey(
            ["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser",
             "--revocation-endpoint", provider.issuer + "/v1/revoke"],
            extraEnvironment: provider.browserEnvironment(), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")
        let settings = try String(contentsOfFile: agent.harness.home + "/config/passkey-agent/accounts/work.toml", encoding: .utf8)
        #expect(settings.contains("revocation_endpoint = \"\(provider.issuer)/v1/revoke\""), "\(settings)")

        let kept = try agent.passkey(["logout", "work", "--keep"])
        #expect(kept.standardOutput.contains("Revoked the refresh token and access token"), "\(kept.standardOutput)\(kept.standardError)")
        let refused = try agent.passkey(["token", "get", "work", "--min-valid", "60"])
        #expect(refused.standardError.contains("invalid_grant"), "\(refused.standardError)")
    }

    @Test("--flow device with --device-authorization-endpoint signs in at a provider that advertises none; it is remembered")
    func deviceFlowWithAGivenEndpoint() throws {
        let provider = try LoginProvider.devserver(["--device-interval", "1"] + Self.lessAdvertised)
        let agent = try LoginThroughAgentTests.agent()
        let base = ["login", "tv", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "device"]

        let unadvertised = try agent.passkey(base)
        #expect(unadvertised.status != 0)
        #expect(unadvertised.standardError.contains("--device-authorization-endpoint"), "\(unadvertised.standardError)")

        // The same Endpoint rule as a discovered endpoint: no plain http off this machine.
        let plain = try agent.passkey(base + ["--device-authorization-endpoint", "http://device.example/authorize"])
        #expect(plain.status != 0)
        #expect(plain.standardError.contains("--device-authorization-endpoint must be an https:// URL"), "\(plain.standardError)")

        let endpoint = provider.issuer + "/v1/device/authorize"
        let login = try RunningProcess(try ProgramPaths.built("passkey"), base + ["--device-authorization-endpoint", endpoint],
                                       environment: agent.harness.environment, directory: agent.harness.home, name: "login-device")
        try login.waitUntil("the device code is shown", timeout: 30) { login.standardError.contains("Waiting") }
        let complete = try #require(login.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("http") && $0.contains("user_code=") })
        let approved = try provider.person(["--activate", String(complete)], scratch: agent.harness.home)
        #expect(approved.status == 0, "\(approved.standardError)")
        #expect(login.waitForExit(timeout: 60) == 0, "\(login.standardError)")
        let token = try agent.passkey(["token", "get", "tv"])
        #expect(token.status == 0, "\(token.standardError)")

        let settings = try String(contentsOfFile: agent.harness.home + "/config/passkey-agent/accounts/tv.toml", encoding: .utf8)
        #expect(settings.contains("device_authorization_endpoint = \"\(endpoint)\""), "\(settings)")

        // A later login needs no flag: the saved endpoint starts the device flow again.
        let again = try RunningProcess(try ProgramPaths.built("passkey"), ["login", "tv"],
                                       environment: agent.harness.environment, directory: agent.harness.home, name: "login-again")
        try again.waitUntil("the device code is shown again", timeout: 30) { again.standardError.contains("Waiting") }
        #expect(again.standardError.contains("user_code="))
        _ = again.stop(signal: SIGINT)
    }
}
