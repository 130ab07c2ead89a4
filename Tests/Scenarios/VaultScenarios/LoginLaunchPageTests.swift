import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 23: another local user must not be able to learn a login's
/// authorization request (state, nonce, PKCE challenge) and finish the
/// login as themselves. The browser is handed a launch page only the user
/// can read; these tests run the real CLI, agent and devserver, with
/// watchers reading /proc as root and as another uid (`nobody`).
@Suite(.ownThreads, .serialized) struct LoginLaunchPageTests {
    static let watcherScript = Interop.packageRoot + "/Tests/Interop/proc_watcher.py"

    static func agent() throws -> VaultAgent {
        let agent = try VaultAgent()
        try agent.start()
        try agent.initializeVault()
        return agent
    }

    /// The lines of a file (empty when missing).
    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test("another uid watching /proc learns neither state, nonce nor PKCE challenge, cannot read the launch page, and the login lands the real user")
    func anotherUserCannotRaceTheLogin() throws {
        guard geteuid() == 0 else {
            throw TestFailure("this test watches as another user with setpriv: run the tests as root (CI does)")
        }
        let provider = try LoginProvider.devserver()
        let agent = try Self.agent()
        let home = agent.harness.home
        let launchDirectory = agent.harness.runtimeDirectory + "/passkey-agent"
        // On a real system /run/user/UID is already closed to others; here the
        // attacker may walk up to the agent's own directory, so what stops it
        // is that directory and the page's mode, not the test's temporary home.
        #expect(chmod(home, 0o711) == 0 && chmod(agent.harness.runtimeDirectory, 0o711) == 0)

        let scratch = try TemporaryDirectory.make(prefix: "login-race")
        defer { TemporaryDirectory.remove(scratch) }
        #expect(chmod(scratch, 0o711) == 0)
        let rootOut = try TemporaryDirectory.directory(scratch + "/root")
        let otherOut = try TemporaryDirectory.directory(scratch + "/nobody")
        #expect(chown(otherOut, 65534, 65534) == 0)

        // The poller: root, so it reads every process's command line and environment.
        let poller = try RunningProcess("/usr/bin/python3", [Self.watcherScript, "--out", rootOut],
                                        environment: ["PATH": "/usr/bin:/bin"], directory: scratch, name: "poller")
        defer { poller.stop() }
        // The attacker: uid nobody, reading /proc and the launch directory,
        // signing in as mallory with any authorization request it learns.
        let attacker = try RunningProcess("/usr/bin/setpriv",
                                          ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", Self.watcherScript,
                                           "--out", otherOut, "--launch-dir", launchDirectory, "--attack", "mallory",
                                           // Only this test's login and the canary: other tests' logins run beside it.
                                           "--only", provider.origin, "--only", "http://127.0.0.1:9"],
                                          environment: ["PATH": "/usr/bin:/bin"], directory: scratch, name: "attacker")
        defer { attacker.stop() }

        // The control: an authorization request on some process's argv is
        // one the attacker sees (so seeing none below means there was none).
        let canary = "http://127.0.0.1:9/v1/authorize?client_id=cli&state=CANARY-STATE-4d1f"
        // (SIGTERM makes the shell end its sleep too: a SIGKILLed shell left it running.)
        let bait = try RunningProcess("/bin/sh", ["-c", "trap 'kill $!; exit 0' TERM; sleep 600 & wait", "bait", canary],
                                      environment: ["PATH": "/usr/bin:/bin"], directory: scratch, name: "bait")
        try attacker.waitUntil("the attacker sees the canary on a command line", timeout: 60) {
            Self.lines(otherOut + "/events.txt").contains { $0.contains("CANARY-STATE-4d1f") }
        }
        bait.stop()

        // The stand-in browser waits until both watchers have scanned /proc
        // twice while it runs, as a real browser is slow to start.
        let browserLog = scratch + "/browser.log"
        let environment = provider.browserEnvironment().merging(
            ["CONSENT_WAIT_SCANS": rootOut + "/scans:" + otherOut + "/scans", "CONSENT_LOG": browserLog]) { _, new in new }
        let login = try agent.harness.passkey(["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
                                              extraEnvironment: environment, timeout: 120)
        #expect(login.status == 0, "\(login.standardError)")
        #expect(login.standardOutput.contains("alice"), "\(login.standardOutput)")
        #expect(!login.standardOutput.contains("mallory"), "\(login.standardOutput)")
        let settings = (try? String(contentsOfFile: home + "/config/passkey-agent/accounts/work.toml", encoding: .utf8)) ?? ""
        #expect(settings.contains("subject = \"alice\""), "\(settings)")

        // What the browser was handed: a page 0600 in a 0700 directory, gone now.
        let browsed = Self.lines(browserLog)
        let pageLine = try #require(browsed.first { $0.hasPrefix("launch page: ") }, "\(browsed)")
        let pageWords = pageLine.split(separator: " ").map(String.init)
        let page = pageWords[2]
        #expect(page.hasPrefix(launchDirectory + "/launch-") && page.hasSuffix(".html"), "\(pageLine)")
        #expect(pageLine.hasSuffix("mode 600 directory 700"), "\(pageLine)")
        #expect(access(page, F_OK) != 0, "the launch page outlived its login")
        let target = try #require(browsed.first { $0.hasPrefix("launch page goes to: ") }.map { String($0.dropFirst(21)) })
        let query = URLComponents(string: target)?.queryItems ?? []
        let secrets = ["state", "nonce", "code_challenge"].compactMap { name in query.first { $0.name == name }?.value }
        #expect(secrets.count == 3, "\(target)")
        #expect(secrets.allSatisfy { $0.count >= 32 })
        // Nor does any file the agent keeps, its log included, now the page is gone.
        #expect(agent.filesContaining(secrets).isEmpty, "\(agent.filesContaining(secrets))")

        // One more pass each, so both saw everything up to the login's end.
        for (watcher, out) in [(poller, rootOut), (attacker, otherOut)] {
            let passes = Int((try? String(contentsOfFile: out + "/scans", encoding: .utf8)) ?? "") ?? 0
            try watcher.waitUntil("another pass over /proc", timeout: 60) {
                (Int((try? String(contentsOfFile: out + "/scans", encoding: .utf8)) ?? "") ?? 0) > passes
            }
        }
        poller.stop()
        attacker.stop()

        // Root's view of every argv and environment: the browser's page path,
        // the CLI's environment, and never the state, nonce or challenge.
        let seen = Self.lines(rootOut + "/seen.txt")
        #expect(seen.contains { $0.contains("consent_browser.py file://" + page) }, "the poller never saw the browser")
        #expect(seen.contains { $0.contains("CONSENT_WAIT_SCANS=") }, "the poller read no environment")
        for secret in secrets {
            #expect(!seen.contains { $0.contains(secret) }, "\(secret) was on an argv or in an environment")
        }

        // The other uid: saw the canary only, was refused the page and the directory, attacked nothing.
        let events = Self.lines(otherOut + "/events.txt")
        #expect(events.filter { $0.hasPrefix("url ") }.allSatisfy { $0.contains("CANARY-STATE-4d1f") }, "\(events)")
        #expect(events.contains("launch \(page) PermissionError"), "\(events)")
        #expect(!events.contains { $0.hasPrefix("launch ") && !$0.hasSuffix("PermissionError") }, "\(events)")
        #expect(events.contains("listdir \(launchDirectory) PermissionError"), "\(events)")
        #expect(!events.contains { $0.hasPrefix("attack ") }, "\(events)")
        #expect(!events.contains { line in secrets.contains { line.contains($0) } }, "\(events)")
    }

    @Test("$BROWSER: %s is replaced inside a word and %% is a percent; the browser gets the launch page's file:// address only")
    func browserVariable() throws {
        let provider = try LoginProvider.devserver()
        let agent = try Self.agent()
        let scratch = try TemporaryDirectory.make(prefix: "login-browser")
        defer { TemporaryDirectory.remove(scratch) }
        // Records its arguments, then plays the person on the page it was given.
        let recorder = scratch + "/browser.sh"
        try """
        #!/bin/sh
        printf '%s\\n' "$@" > \(scratch)/argv
        exec python3 \(LoginProvider.consentScript) "${1#--page=}"
        """.write(toFile: recorder, atomically: true, encoding: .utf8)
        var environment = provider.browserEnvironment()
        environment["BROWSER"] = "/bin/sh \(recorder) --page=%s --literal=100%%"
        let login = try agent.harness.passkey(["login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
                                              extraEnvironment: environment, timeout: 90)
        #expect(login.status == 0, "\(login.standardError)")
        #expect(login.standardError.contains("(opened with /bin/sh)"), "\(login.standardError)")
        // The terminal still shows the address, for a person whose browser is elsewhere.
        #expect(login.standardError.contains(provider.issuer + "/v1/authorize?"))
        let argv = Self.lines(scratch + "/argv")
        #expect(argv.count == 2, "\(argv)")
        let page = argv.first ?? ""
        #expect(page.hasPrefix("--page=file://" + agent.harness.runtimeDirectory + "/passkey-agent/launch-"), "\(argv)")
        #expect(argv.last == "--literal=100%", "\(argv)")
        #expect(!argv.contains { $0.contains("state=") || $0.contains("http") }, "\(argv)")
    }

    @Test("a launch page whose writer died is removed when the agent starts; one a live process holds stays")
    func stalePagesGo() throws {
        let agent = try Self.agent()
        let directory = agent.harness.runtimeDirectory + "/passkey-agent"
        func plant(_ name: String) throws -> String {
            let path = directory + "/" + name
            try "<!DOCTYPE html>".write(toFile: path, atomically: false, encoding: .utf8)
            chmod(path, 0o600)
            // Older than the five seconds a writer may take between create and lock.
            var times = [timeval(tv_sec: time(nil) - 60, tv_usec: 0), timeval(tv_sec: time(nil) - 60, tv_usec: 0)]
            #expect(utimes(path, &times) == 0)
            return path
        }
        let stale = try plant("launch-" + String(repeating: "a1", count: 16) + ".html")
        let live = try plant("launch-" + String(repeating: "b2", count: 16) + ".html")
        let other = try plant("launch-notours.html")
        let held = open(live, O_RDONLY | O_CLOEXEC)
        defer { close(held) }
        #expect(flock(held, LOCK_EX) == 0)

        try agent.restart()
        // The socket listens before the core exists (requests wait in the
        // backlog): an answer means the core has started, and swept.
        _ = try agent.status()
        #expect(access(stale, F_OK) != 0, "a stale launch page stayed")
        #expect(access(live, F_OK) == 0, "a live login's page was removed")
        #expect(access(other, F_OK) == 0, "a file not named as a page was removed")
    }
}
