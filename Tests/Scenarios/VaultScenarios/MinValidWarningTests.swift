import Foundation
import Testing
import TestSupport

/// Issue 26's rough edge: `--min-valid` longer than the provider's token
/// lifetime used to refresh on every call and hand out a shorter-lived token
/// without a word. Now a refresh that still falls short says so on stderr;
/// the token alone stays on stdout.
@Suite(.ownThreads) struct MinValidWarningTests {
    @Test("a fresh token shorter than --min-valid is handed out with a warning on stderr; a long-enough one without")
    func shortLivedTokensAreSaidToBeShort() throws {
        let provider = try LoginProvider.devserver(["--access-token-lifetime", "30"])
        let agent = try LoginThroughAgentTests.agent()
        let login = try agent.harness.passkey(
            ["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
            extraEnvironment: provider.browserEnvironment(), timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")

        let short = try agent.passkey(["token", "get", "work", "--min-valid", "120"])
        #expect(short.status == 0, "\(short.standardError)")
        #expect(jwtClaims(short.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))?["sub"] as? String == "alice",
                "stdout holds the token alone")
        #expect(short.standardError.contains("less than --min-valid 120"), "\(short.standardError)")

        let enough = try agent.passkey(["token", "get", "work", "--min-valid", "5"])
        #expect(enough.status == 0, "\(enough.standardError)")
        #expect(!enough.standardError.contains("warning"), "\(enough.standardError)")
    }
}
