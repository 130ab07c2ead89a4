import Foundation
import Testing
import TestSupport

/// Any web page can open a callback URL (a private-use scheme, or the
/// loopback redirect URI) with a query nobody can read, such as `?%zz`. It
/// used to end the login in flight as a malformed redirect; its `state`
/// cannot be read, so now it is refused as a state mismatch and the login
/// waits on — through the real CLI and agent, on the paste path that
/// pasted and URL-handler redirects take.
@Suite(.ownThreads) struct UnreadableRedirectTests {
    @Test("a redirect with an unreadable query leaves the login waiting; the real one then lands")
    func anUnreadableQueryLeavesTheLoginWaiting() throws {
        let provider = try LoginProvider.devserver()
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        let login = try RunningProcess(try ProgramPaths.built("passkey"),
                                       ["login", "remote", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "paste"],
                                       environment: agent.harness.environment, directory: agent.harness.home, name: "login-zz")
        try login.waitUntil("the authorization URL is shown", timeout: 30) { login.standardError.contains("Paste that whole address") }
        let url = try #require(login.standardError.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(provider.issuer + "/v1/authorize?") })
        let consent = try provider.person(["--print-redirect", url], scratch: agent.harness.home)
        #expect(consent.status == 0, "\(consent.standardError)")
        let redirect = consent.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let redirectURI = try #require(redirect.split(separator: "?", maxSplits: 1).first)

        for unreadable in ["\(redirectURI)?%zz", "\(redirectURI)?state=%zz&code=x", "\(redirectURI)"] {
            let refused = try agent.passkey(["login", "remote", "--complete"], input: unreadable + "\n")
            #expect(refused.status != 0, "\(unreadable)")
            #expect(refused.standardError.contains("another login"), "\(unreadable): \(refused.standardError)")
            #expect(login.poll() == nil, "the login still waits after \(unreadable)")
        }

        let pasted = try agent.passkey(["login", "remote", "--complete"], input: redirect + "\n")
        #expect(pasted.status == 0, "\(pasted.standardError)")
        #expect(login.waitForExit(timeout: 60) == 0, "\(login.standardError)")
        #expect(try agent.passkey(["token", "get", "remote"]).status == 0)
    }
}
