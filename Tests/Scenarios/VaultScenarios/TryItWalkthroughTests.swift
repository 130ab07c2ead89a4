import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// README's "Try it": every command of its two code blocks, in order,
/// exactly as written — terminal 1's devserver in the background, terminal
/// 2's commands as one bash script — with the programs of this build on
/// PATH, fresh XDG directories, and the person played by the tests' own
/// stand-ins: consent_browser.py as `$BROWSER` (it signs in as alice, or
/// follows the redirects to the invoke URL and hands it to `passkey invoke -`)
/// and a scripted pinentry that confirms.
@Suite(.ownThreads, .timeLimit(.minutes(5))) struct TryItWalkthroughTests {
    /// The ```sh blocks of README's "## Try it" section.
    static func blocks() throws -> [String] {
        let readme = try String(contentsOfFile: Interop.packageRoot + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "\n## Try it\n"))
        let rest = readme[start.upperBound...]
        let section = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        var blocks: [String] = []
        var current: [Substring]?
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```sh" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return blocks
    }

    /// The processes `pid` started (Linux /proc/PID/task/PID/children).
    /// `pid`'s children, each held so that a signal reaches it or nothing.
    static func children(of pid: pid_t) -> [DetachedProcess] {
        func listed() -> [pid_t] {
            TextFile.read("/proc/\(pid)/task/\(pid)/children").split(separator: " ").compactMap { pid_t(String($0)) }
        }
        return listed().compactMap { child in DetachedProcess(pid: child) { _ in listed().contains(child) } }
    }

    @Test("README's Try it runs as written: passwordless.dev, the vault, login and refresh, lock, Okta + BI, Okta IDX")
    func tryItRunsAsWritten() throws {
        let blocks = try Self.blocks()
        #expect(blocks.count == 2, "terminal 1 and terminal 2")
        let (terminal1, terminal2) = (try #require(blocks.first), try #require(blocks.last))

        let harness = try AgentHarness()
        let pinentry = try ScriptedPinentry(in: harness.home, answer: .allow)
        let browser = harness.home + "/browser"
        let consent = LoginProvider.consentScript
        try ExecutableScript.write("#!/bin/sh\npython3 '\(consent)' --follow \"$1\" || python3 '\(consent)' \"$1\"\n", to: browser)
        let built = (try ProgramPaths.built("passkey") as NSString).deletingLastPathComponent
        var environment = harness.environment.merging(pinentry.environment) { _, new in new }
        environment["PATH"] = built + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["BROWSER"] = browser
        environment["DISPLAY"] = ":99"
        environment["PASSKEY_PROGRAM"] = built + "/passkey"
        environment["CONSENT_LOG"] = harness.home + "/consent.log"

        let devserver = try RunningProcess("/bin/bash", ["-c", terminal1], environment: environment,
                                           directory: harness.home, name: "terminal1")
        defer {
            // The devserver is bash's child (`umask 077; …` is a list): stop it first, then bash ends with it.
            for child in Self.children(of: devserver.pid) { child.signal(SIGTERM) }
            _ = devserver.waitForExit(timeout: 10)
            devserver.stop()
        }
        let startup = harness.home + "/passkey-devserver.json"
        try devserver.waitUntil("the devserver writes its first line", timeout: 30) {
            (try? String(contentsOfFile: startup, encoding: .utf8))?.contains("apiSecret") == true
        }
        #expect(AgentHarness.mode(startup) == 0o600, "the API keys only you can read")

        let run = try ProcessResult.run("/bin/bash", ["-e", "-c", terminal2], standardInput: nil, environment: environment,
                                        scratch: harness.home, timeout: 180)
        let log = (try? String(contentsOfFile: harness.home + "/consent.log", encoding: .utf8)) ?? ""
        #expect(run.status == 0, "\(run.standardError)\n\(log)")
        let output = run.standardOutput
        for step in ["\"success\": true", "\"userId\": \"u1\"", "Created the vault", "Signed in to http://127.0.0.1:8787/oauth2/default as subject alice",
                     "Locked.", "refused: exit 7", "Unlocked with slot 1", "Bound a passkey for Alice",
                     "The tokens of \"okta\" are in the vault", "The tokens of \"idx\" are in the vault", "stopped"] {
            #expect(output.contains(step), "missing: \(step)\n\(output)")
        }
        // Three access tokens of work (the second a refresh), okta's for alice, idx's: each a JWT of the devserver.
        let tokens = output.split(separator: "\n").filter { $0.hasPrefix("eyJ") }.map(String.init)
        #expect(tokens.count == 5, "\(output)")
        #expect(tokens.count >= 2 && tokens[0] != tokens[1], "the refresh gave a new access token")
        #expect(tokens.count >= 3 && tokens[2] == tokens[1], "after unlock, the stored token")
        #expect(tokens.allSatisfy { jwtClaims($0)?["iss"] as? String == "http://127.0.0.1:8787/oauth2/default" })
        #expect(pinentry.confirmations.contains { $0.contains("bi.passkey.test") }, "the person confirmed the invoke")
    }
}
