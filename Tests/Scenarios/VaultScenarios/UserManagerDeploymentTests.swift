import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The path a user takes, run for real: a throwaway non-root user with its
/// own `systemd --user`, `scripts/install` with the built programs, then
/// `passkey …` with no agent started by hand — socket activation starts it,
/// under the unit's sandbox. It fails (never skips) when the manager cannot
/// start, and reads `systemctl --user show -p ExecMainStatus,Result` so a
/// directive the user manager refuses (218/CAPABILITIES, 226/NAMESPACE) fails it.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct UserManagerDeploymentTests {
    /// The programs scripts/install installs, as its `programs=(…)` line lists them.
    static func programs() throws -> [String] {
        let script = try String(contentsOfFile: Interop.packageRoot + "/scripts/install", encoding: .utf8)
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix("programs=(") && $0.hasSuffix(")") },
                                "scripts/install names its programs")
        return line.dropFirst("programs=(".count).dropLast().split(separator: " ").map(String.init)
    }

    /// The built programs, the source tree's files `scripts/install` reads
    /// and the scripted browser, copied where the user can read them: the
    /// checkout may sit in root's home.
    private static func stage(_ scratch: String) throws -> (bin: String, repo: String, browser: String) {
        let bin = scratch + "/bin", repo = scratch + "/repo"
        for directory in [bin, repo] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        for program in try programs() {
            try FileManager.default.copyItem(atPath: try ProgramPaths.built(program), toPath: bin + "/" + program)
        }
        // Not the build directories: .build and the sanitizers' .build-thread and .build-address (gigabytes).
        let copied = try ProcessResult.run("/bin/sh", ["-c", "tar -C \"$1\" --exclude='./.build*' --exclude=./.git -cf - . | tar -C \"$2\" -xf -",
                                                       "sh", Interop.packageRoot, repo],
                                           standardInput: nil, environment: ProcessInfo.processInfo.environment,
                                           scratch: scratch, timeout: 60)
        guard copied.status == 0 else { throw TestFailure("copying the source tree failed: \(copied.standardError)") }
        let browser = scratch + "/consent_browser.py"
        try FileManager.default.copyItem(atPath: LoginProvider.consentScript, toPath: browser)
        let readable = try ProcessResult.run("/bin/chmod", ["-R", "a+rX", scratch], standardInput: nil,
                                             environment: ProcessInfo.processInfo.environment, scratch: "/tmp", timeout: 60)
        guard readable.status == 0 else { throw TestFailure("chmod failed: \(readable.standardError)") }
        return (bin, repo, browser)
    }

    /// Requires the agent's unit to have run as systemd was asked: a refused
    /// directive shows as ExecMainStatus 218 (CAPABILITIES) or 226 (NAMESPACE).
    private func requireAccepted(_ state: [String: String], _ when: String) {
        #expect(state["Result"] == "success", "\(when): passkey-agent.service \(state) — the user manager refused the unit (218 = CAPABILITIES, 226 = NAMESPACE)")
        #expect(state["ExecMainStatus"] == "0", "\(when): passkey-agent.service \(state)")
    }

    @Test("install, socket activation, vault, login, token, lock, restart, idle exit and re-activation, uninstall — as a user under systemd --user")
    func theDeploymentPath() throws {
        let scratch = try TemporaryDirectory.make(prefix: "deployment")
        defer { TemporaryDirectory.remove(scratch) }
        chmod(scratch, 0o755)
        let (bin, repo, browser) = try Self.stage(scratch)
        let session = try UserManager()
        defer { session.stop() }

        let installed = try session.run([repo + "/scripts/install", "--from", bin], timeout: 120)
        #expect(installed.status == 0, "\(installed.standardOutput)\(installed.standardError)")
        #expect(installed.standardOutput.contains("enabled passkey-agent.socket"), "\(installed.standardOutput)")
        #expect(try session.show("passkey-agent.socket", ["ActiveState"])["ActiveState"] == "active")
        #expect(session.processes(named: "passkey-agent").isEmpty, "no agent before the first request")

        // The first request starts the agent through the socket.
        let status = try session.run(["passkey", "status"])
        #expect(status.status == 0, "\(status.standardOutput)\(status.standardError)")
        #expect(status.standardOutput.contains("agent: running (pid "), "\(status.standardOutput)")
        #expect(status.standardOutput.contains("setting: agent.idle-timeout = 900  (default)"), "no flag on the unit's command line")
        let first = try session.show("passkey-agent.service")
        #expect(first["ActiveState"] == "active")
        requireAccepted(first, "first start")
        let mainPID = try #require(first["MainPID"].flatMap { pid_t($0) })
        #expect(status.standardOutput.contains("agent: running (pid \(mainPID),"), "the socket-activated agent answered")
        // PrivateUsers=yes took effect: the agent sees only its own uid mapped.
        let uidMap = (try? String(contentsOfFile: "/proc/\(mainPID)/uid_map", encoding: .utf8)) ?? ""
        #expect(uidMap.split(whereSeparator: \.isWhitespace).last == "1", "a user namespace mapping one uid: \(uidMap)")
        // The agent sees /run as it is: the socket's directory (a login's launch
        // page goes there) and, where the host has them, pcscd's socket and udev's database.
        for path in [session.runtimeDirectory + "/passkey-agent", "/run/pcscd", "/run/udev"]
        where path.hasPrefix(session.runtimeDirectory) || FileManager.default.fileExists(atPath: path) {
            #expect(FileManager.default.fileExists(atPath: "/proc/\(mainPID)/root" + path), "the agent cannot see \(path)")
        }
        // The running unit's exposure, as docs/RELIABILITY.md records it.
        let security = try session.run(["systemd-analyze", "security", "--user", "--threshold=54", "passkey-agent.service"])
        #expect(security.status == 0, "exposure above 5.4:\n\(security.standardOutput)\(security.standardError)")

        let created = try session.run(["passkey", "vault", "init", "--slot", "fido2", "--device", "virtual"])
        #expect(created.status == 0, "\(created.standardOutput)\(created.standardError)")

        // A login against the devserver, the scripted person at the browser; the agent
        // fetches discovery into its cache, which the sandbox leaves writable.
        let provider = try LoginProvider.devserver()
        let login = try session.run(["passkey", "login", "work", "--issuer", provider.issuer, "--client-id", "cli", "--flow", "browser"],
                                    extra: ["BROWSER": "python3 \(browser)", "CONSENT_USER": "alice", "CONSENT_FIELD": provider.consentField,
                                            "CONSENT_ACTION": "allow", "DISPLAY": ":99"], timeout: 30)
        #expect(login.status == 0, "\(login.standardOutput)\(login.standardError)")
        #expect(login.standardOutput.contains("Signed in to \(provider.issuer)"), "\(login.standardOutput)")
        let cached = (try? FileManager.default.subpathsOfDirectory(atPath: session.home + "/.cache/passkey-agent/oidc")) ?? []
        #expect(!cached.isEmpty, "the discovery cache is stored under ~/.cache/passkey-agent")

        let token = try session.run(["passkey", "token", "get", "work"])
        #expect(token.status == 0, "\(token.standardError)")
        let access = token.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(jwtClaims(access)?["sub"] as? String == "alice")

        let locked = try session.run(["passkey", "lock"])
        #expect(locked.status == 0, "\(locked.standardError)")
        #expect(try session.run(["passkey", "status"]).standardOutput.contains("vault: locked"))

        // A restart: a new agent, the vault locked, its data intact.
        let restarted = try session.systemctl(["restart", "passkey-agent.service"])
        #expect(restarted.status == 0, "\(restarted.standardError)")
        let second = try session.show("passkey-agent.service")
        requireAccepted(second, "restart")
        #expect(second["MainPID"] != first["MainPID"], "a new agent process")
        #expect(try session.run(["passkey", "status"]).standardOutput.contains("vault: locked"))
        let unlocked = try session.run(["passkey", "unlock", "--slot", "fido2", "--device", "virtual"])
        #expect(unlocked.status == 0, "\(unlocked.standardError)")
        let again = try session.run(["passkey", "token", "get", "work"])
        #expect(again.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == access, "the same token from the vault: \(again.standardError)")

        // Idle exit, decided by config.toml alone, then re-activation by the next request.
        let configured = try session.run(["sh", "-c", "printf '[agent]\\nidle-timeout = 2\\n' > \"$HOME/.config/passkey-agent/config.toml\""])
        #expect(configured.status == 0, "\(configured.standardError)")
        let idle = try session.waitFor("passkey-agent.service", "exit when idle") { $0["ActiveState"] == "inactive" }
        requireAccepted(idle, "idle exit")
        #expect(try session.show("passkey-agent.socket", ["ActiveState"])["ActiveState"] == "active", "the socket stays")
        let woken = try session.run(["passkey", "status"])
        #expect(woken.standardOutput.contains("agent: running (pid "), "\(woken.standardOutput)\(woken.standardError)")
        #expect(woken.standardOutput.contains("setting: agent.idle-timeout = 2  (config.toml)"), "\(woken.standardOutput)")
        #expect(woken.standardOutput.contains("vault: locked"))
        requireAccepted(try session.show("passkey-agent.service"), "re-activation")

        // Uninstall: nothing of ours runs afterwards.
        let uninstalled = try session.run([repo + "/scripts/install", "--uninstall"], timeout: 120)
        #expect(uninstalled.status == 0, "\(uninstalled.standardOutput)\(uninstalled.standardError)")
        #expect(session.processes(named: "passkey-agent").isEmpty, "no agent runs after --uninstall")
        let socket = try session.show("passkey-agent.socket", ["ActiveState"])
        #expect(socket["ActiveState"] == "inactive", "\(socket)")
        #expect(!FileManager.default.fileExists(atPath: session.home + "/.local/bin/passkey-agent"), "the programs are gone")
    }
}
