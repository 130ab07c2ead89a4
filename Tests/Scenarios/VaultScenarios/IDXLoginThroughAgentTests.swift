import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `passkey login ACCOUNT --via okta-idx` end to end: the real CLI and
/// agent against the devserver's Okta Identity Engine subset on loopback,
/// with the software authenticator (`--device virtual`) as the security
/// key. A new user enrolls a key through IDX, then signs in with it; the
/// tokens land in the vault and `token get` refreshes them.
@Suite(.ownThreads, .timeLimit(.minutes(5))) struct IDXLoginThroughAgentTests {
    /// The devserver with IDX users alice (a password) and bob (none), and an agent with a fresh vault.
    static func setUp(_ arguments: [String] = [], agentEnvironment: [String: String] = [:]) throws -> (LoginProvider, VaultAgent) {
        let agent = try VaultAgent(extraEnvironment: agentEnvironment)
        let users = agent.harness.home + "/idx-users"
        try "alice:correct horse battery\nbob\n".write(toFile: users, atomically: true, encoding: .utf8)
        chmod(users, 0o600)
        let provider = try LoginProvider.devserver(["--idx-users-file", users] + arguments)
        try agent.start()
        try agent.initializeVault()
        return (provider, agent)
    }

    static func login(_ agent: VaultAgent, _ provider: LoginProvider, account: String = "okta", _ extra: [String],
                      password: String? = nil) throws -> ProcessResult {
        try agent.harness.passkey(["login", account, "--via", "okta-idx", "--issuer", provider.issuer, "--client-id", "cli",
                                   "--device", "virtual"] + extra + (password == nil ? [] : ["--password-stdin"]),
                                  standardInput: password.map { $0 + "\n" }, timeout: 90)
    }

    @Test("a new user enrolls the key through IDX, signs in with it, token get prints the access token; refresh works")
    func enrollThenSignIn() throws {
        let (provider, agent) = try Self.setUp(["--access-token-lifetime", "30"])
        let enrolled = try Self.login(agent, provider, ["--username", "bob"])
        #expect(enrolled.status == 0, "\(enrolled.standardError)")
        #expect(enrolled.standardOutput.contains("Signed in to \(provider.issuer)"), "\(enrolled.standardOutput)")
        let first = try agent.passkey(["token", "get", "okta"])
        #expect(first.status == 0, "\(first.standardError)")
        let access1 = first.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let subject = try #require(jwtClaims(access1)?["sub"] as? String)
        #expect(jwtClaims(access1)?["iss"] as? String == provider.issuer)

        let settings = try String(contentsOfFile: agent.harness.home + "/config/passkey-agent/accounts/okta.toml", encoding: .utf8)
        #expect(settings.contains("flow = \"okta-idx\""), "\(settings)")
        #expect(settings.contains("issuer = \"\(provider.issuer)\""))

        // Signing in again (the account remembers the issuer, client and
        // flow): the server now challenges the enrolled key.
        let again = try agent.harness.passkey(["login", "okta", "--username", "bob", "--device", "virtual"], timeout: 90)
        #expect(again.status == 0, "\(again.standardError)")
        let second = try agent.passkey(["token", "get", "okta"])
        let access2 = second.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(access2 != access1)
        #expect(jwtClaims(access2)?["sub"] as? String == subject, "the same user")

        // Tokens live 30 s: asking for 60 s of validity refreshes with the IDX login's refresh token.
        let refreshed = try agent.passkey(["token", "get", "okta", "--min-valid", "60"])
        #expect(refreshed.status == 0, "\(refreshed.standardError)")
        let access3 = refreshed.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(access3 != access2 && jwtClaims(access3)?["sub"] as? String == subject)
        let accounts = try agent.passkey(["accounts"])
        #expect(accounts.standardOutput.contains("okta-idx"), "\(accounts.standardOutput)")
        #expect(agent.filesContaining([access1, access2, access3]).isEmpty, "no token in any file")
    }

    @Test("a password, then a key: --password-stdin answers the password form; a wrong password is the server's message")
    func passwordThenKey() throws {
        let (provider, agent) = try Self.setUp()
        let wrong = try Self.login(agent, provider, ["--username", "alice"], password: "not it")
        #expect(wrong.status != 0)
        #expect(wrong.standardError.contains("Password"), "\(wrong.standardError)")
        #expect(!wrong.standardError.contains("not it"), "the password is never echoed")
        #expect(try agent.passkey(["token", "get", "okta"]).status != 0, "nothing was stored")

        let right = try Self.login(agent, provider, ["--username", "alice"], password: "correct horse battery")
        #expect(right.status == 0, "\(right.standardError)")
        #expect(try agent.passkey(["token", "get", "okta"]).status == 0)
        #expect(agent.filesContaining(["correct horse battery"]).isEmpty)
    }

    @Test("without a terminal, a form that needs an answer is a clear error naming the field and the option")
    func nonInteractive() throws {
        let (provider, agent) = try Self.setUp()
        let noUser = try Self.login(agent, provider, [])
        #expect(noUser.status != 0)
        #expect(noUser.standardError.contains("--username"), "\(noUser.standardError)")
        let noPassword = try Self.login(agent, provider, ["--username", "alice"])
        #expect(noPassword.status != 0)
        #expect(noPassword.standardError.contains("--password-stdin"), "\(noPassword.standardError)")
    }

    @Test("an assertion from a key that holds no enrolled credential is refused clearly; nothing is stored")
    func keyNotEnrolled() throws {
        let (provider, agent) = try Self.setUp()
        let enrolled = try Self.login(agent, provider, ["--username", "bob"])
        #expect(enrolled.status == 0, "\(enrolled.standardError)")
        let other = agent.harness.home + "/other-key.json"
        let refused = try Self.login(agent, provider, account: "other", ["--username", "bob", "--virtual-state", other])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("holds no passkey for this site"), "\(refused.standardError)")
        #expect(try agent.passkey(["token", "get", "other"]).status != 0)
    }

    @Test("over the socket: a form sent without a required value is invalid_input and the sign-in goes on")
    func missingValueKeepsTheSignIn() throws {
        let (provider, agent) = try Self.setUp()
        let client = try agent.harness.connect()
        let begin = #"{"account":"okta","issuer":"\#(provider.issuer)","clientId":"cli","flow":"okta-idx","device":"virtual"}"#
        let started = try client.call(1, "login.begin", params: begin, timeout: 60)
        #expect((started.result?["idx"] as? [String: Any])?["remediation"] as? String == "identify", "\(started)")
        let empty = try client.call(2, "login.idx.proceed", params: #"{"account":"okta","remediation":"identify","values":{}}"#, timeout: 60)
        #expect(empty.errorKind == "invalid_input", "\(empty)")
        #expect("\(empty)".contains("identifier"), "the error names the field")
        // The same sign-in answers the corrected form: bob has no key yet, so the key is enrolled and the tokens land.
        let filled = try client.call(3, "login.idx.proceed",
                                     params: #"{"account":"okta","remediation":"identify","values":{"identifier":"bob"},"device":"virtual"}"#,
                                     timeout: 90)
        #expect(filled.errorKind == nil, "\(filled)")
        #expect(filled.result?["done"] as? Bool == true, "\(filled)")
    }

    @Test("over the socket: an expired stateHandle restarts the sign-in once, then stops; cancel ends it")
    func expiryAndCancel() throws {
        // The devserver's clock is driven through a file: the handle expires when the test says, not after a sleep.
        let clockFile = FileManager.default.temporaryDirectory.appendingPathComponent("idx-clock-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: clockFile) }
        let (provider, agent) = try Self.setUp(["--idx-state-lifetime", "1", "--clock-file", clockFile])
        let client = try agent.harness.connect()
        let begin = #"{"account":"okta","issuer":"\#(provider.issuer)","clientId":"cli","flow":"okta-idx","device":"virtual"}"#
        let started = try client.call(1, "login.begin", params: begin, timeout: 60)
        let step = try #require(started.result?["idx"] as? [String: Any], "\(started)")
        #expect(step["remediation"] as? String == "identify")
        let fields = try #require(step["fields"] as? [[String: Any]])
        #expect(fields.contains { $0["path"] as? String == "identifier" })
        #expect(!"\(started)".contains("stateHandle"), "the state handle stays in the agent")

        // The handle lives 1 s; 2 s later by the server's clock it says idx.session.expired: the agent starts again once.
        try "2".write(toFile: clockFile, atomically: true, encoding: .utf8)
        let identify = #"{"account":"okta","remediation":"identify","values":{"identifier":"bob"},"device":"virtual"}"#
        let restarted = try client.call(2, "login.idx.proceed", params: identify, timeout: 60)
        let notices = (restarted.result?["messages"] as? [[String: Any]] ?? []).compactMap { $0["key"] as? String }
        #expect(notices.contains("idx.session.expired"), "\(restarted)")
        #expect(restarted.result?["remediation"] as? String == "identify")
        try "4".write(toFile: clockFile, atomically: true, encoding: .utf8)
        let expired = try client.call(3, "login.idx.proceed", params: identify, timeout: 60)
        #expect(expired.errorKind == "timeout", "\(expired)")
        #expect("\(expired)".contains("idx.session.expired"))
        let gone = try client.call(4, "login.idx.proceed", params: identify, timeout: 60)
        #expect(gone.errorKind == "not_found", "\(gone)")

        let again = try client.call(5, "login.begin", params: begin, timeout: 60)
        #expect(again.result?["idx"] != nil, "\(again)")
        let cancelled = try client.call(6, "login.idx.proceed", params: #"{"account":"okta","remediation":"cancel"}"#, timeout: 60)
        #expect(cancelled.errorKind == "cancelled", "\(cancelled)")
        #expect(try client.call(7, "login.idx.proceed", params: identify, timeout: 60).errorKind == "not_found")
    }

    @Test("a cancelled touch: `$/cancel` while the key waits for the person ends the sign-in; nothing is stored")
    func cancelledTouch() throws {
        // The simulated person takes 4 s to touch (or show a finger): long enough to cancel while the key waits.
        let slow = ["PASSKEY_VIRTUAL_PRESENCE": "approve-after:4000", "PASSKEY_VIRTUAL_VERIFICATION": "approve-after:4000"]
        let (provider, agent) = try Self.setUp(agentEnvironment: slow)
        let client = try agent.harness.connect()
        let begin = #"{"account":"okta","issuer":"\#(provider.issuer)","clientId":"cli","flow":"okta-idx","device":"virtual"}"#
        #expect(try client.call(1, "login.begin", params: begin, timeout: 60).result?["idx"] != nil)
        try client.send(#"{"jsonrpc":"2.0","id":2,"method":"login.idx.proceed","params":{"account":"okta","remediation":"identify","values":{"identifier":"bob"},"device":"virtual"}}"# + "\n")
        var stages: [String] = []
        while !stages.contains("touch") {
            let message = try client.readJSON(timeout: 30)
            guard let stage = (message["params"] as? [String: Any])?["stage"] as? String else {
                Issue.record("answered before the key asked for a touch: \(message)")
                return
            }
            stages.append(stage)
        }
        try client.send(#"{"jsonrpc":"2.0","method":"$/cancel","params":{"id":2}}"# + "\n")
        var answer: [String: Any] = [:]
        repeat { answer = try client.readJSON(timeout: 30) } while answer["method"] != nil
        #expect(answer["id"] as? Int == 2)
        #expect(answer.errorKind == "cancelled", "\(answer)")
        let after = try client.call(3, "login.idx.proceed", params: #"{"account":"okta","remediation":"identify","values":{"identifier":"bob"}}"#,
                                    timeout: 30)
        #expect(after.errorKind == "not_found", "the cancelled sign-in is gone: \(after)")
        #expect(try agent.passkey(["token", "get", "okta"]).status != 0, "nothing was stored")
    }

    /// Runs a command on a pseudo-terminal and answers its prompts in turn:
    /// each pair is the text to wait for and the line to type (nil: only wait).
    static let terminal = """
    import os, pty, select, sys, time
    steps, argv = sys.argv[1], sys.argv[2:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    out, shown = b"", b""
    def expect(text):
        global out, shown
        end = time.time() + 60
        while text.encode() not in out and time.time() < end:
            if select.select([fd], [], [], 1)[0]:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    break
                if not data:
                    break
                out += data
        if text.encode() not in out:
            sys.stdout.write((shown + out).decode(errors="replace") + "\\n[never saw " + text + "]\\n")
            sys.exit(3)
        cut = out.index(text.encode()) + len(text)
        shown, out = shown + out[:cut], out[cut:]
    for step in steps.split("\\x1e"):
        wait, _, typed = step.partition("\\x1f")
        expect(wait)
        if typed:
            os.write(fd, typed.encode() + b"\\n")
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
    _, status = os.waitpid(pid, 0)
    sys.stdout.write((shown + out).decode(errors="replace"))
    sys.exit(os.waitstatus_to_exitcode(status))
    """

    @Test("on a terminal: the username asked, the password without echo, a wrong one asked again with Okta's message")
    func onATerminal() throws {
        let (provider, agent) = try Self.setUp()
        let steps = [("Username: ", "alice"), ("Password: ", "wrong one"), ("Password is incorrect", ""),
                     ("Password: ", "correct horse battery"), ("Signed in", "")]
            .map { $0.0 + "\u{1f}" + $0.1 }.joined(separator: "\u{1e}")
        let run = try ProcessResult.run("/usr/bin/env", ["python3", "-c", Self.terminal, steps, try ProgramPaths.built("passkey"),
                                                         "login", "okta", "--via", "okta-idx", "--issuer", provider.issuer,
                                                         "--client-id", "cli", "--device", "virtual"],
                                        standardInput: nil, environment: agent.harness.environment, scratch: agent.harness.home, timeout: 90)
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        #expect(run.standardOutput.contains("alice"), "the username is echoed")
        #expect(!run.standardOutput.contains("wrong one") && !run.standardOutput.contains("correct horse"), "passwords are not: \(run.standardOutput)")
        #expect(try agent.passkey(["token", "get", "okta"]).status == 0)
    }
}
