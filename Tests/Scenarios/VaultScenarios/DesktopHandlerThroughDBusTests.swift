import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The URL-scheme handler as a desktop runs it (issue 23): `passkey
/// install-handler` writes a `DBusActivatable=true` .desktop file and a D-Bus
/// service file; `gio open` (GIO, what GNOME and Firefox use to open a link)
/// sends the URL to `org.freedesktop.Application.Open` on the session bus, a
/// real `dbus-daemon --session` starts passkey-agent for the name, and the
/// agent runs the invoke. The link's secret is never on a command line.
@Suite(.ownThreads) struct DesktopHandlerThroughDBusTests {
    static let applicationID = "io.github.passkey_agent.Invoke"

    /// An agent's directories and config (not started: the bus starts it),
    /// the devserver, and the handler installed by `passkey install-handler`.
    static func setUp() throws -> (LoginProvider, VaultAgent, environment: [String: String]) {
        let provider = try LoginProvider.devserver()
        let agent = try VaultAgent(person: .allow)
        let home = agent.harness.home
        try FileManager.default.createDirectory(atPath: home + "/config/passkey-agent", withIntermediateDirectories: true)
        let config = home + "/config/passkey-agent/config.toml"
        try ("[device]\ndefault = \"virtual\"\n\n" + InvokeThroughAgentTests.trustedApplication(provider)).write(toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o600)
        return (provider, agent, try installHandler(agent))
    }

    /// `passkey install-handler` in the agent's directories; the environment
    /// under which GIO and the bus find this handler and no other.
    static func installHandler(_ agent: VaultAgent) throws -> [String: String] {
        let home = agent.harness.home
        // Only this test's applications and services: none of the machine's.
        try FileManager.default.createDirectory(atPath: home + "/data-dirs", withIntermediateDirectories: true)
        let environment = agent.harness.environment.merging(["XDG_DATA_DIRS": home + "/data-dirs"]) { _, own in own }
        let installed = try ProcessResult.run(try ProgramPaths.built("passkey"), ["install-handler"], standardInput: nil,
                                              environment: environment, scratch: home, timeout: 60)
        #expect(installed.status == 0, "\(installed.standardError)")
        return environment
    }

    @Test("a binding link opened with gio open: the bus starts the agent, the person confirms in pinentry, the passkey is bound, and the token is on no process's command line")
    func bindingLinkThroughGioOpen() throws {
        let (provider, agent, environment) = try Self.setUp()
        let home = agent.harness.home
        let bus = try SessionBus(runtimeDirectory: agent.harness.runtimeDirectory, environment: environment, directory: home)
        #expect(try bus.owner(of: Self.applicationID, scratch: home) == nil, "no agent runs yet")

        let identity = try provider.adminPOST(InvokeThroughAgentTests.bi + "/identities",
                                              #"{"identity":{"display_name":"Alice","traits":{"username":"alice","primary_email_address":"alice@example.test"}}}"#,
                                              scratch: home)
        let id = try #require(identity["id"] as? String)
        let job = try provider.adminPOST(InvokeThroughAgentTests.bi + "/identities/\(id)/credential-binding-jobs",
                                         #"{"job":{"delivery_method":"RETURN"}}"#, scratch: home)
        let link = try #require(job["credential_binding_link"] as? String)
        // The browser opens the emailed link; the IdP sends it on to the
        // invoke scheme, whose handler gets the bind URL with the job's token.
        let bindURL = try provider.location(of: link, scratch: home)
        #expect(bindURL.hasPrefix("io.github.passkey-agent:/"), "\(bindURL)")
        let token = try #require(URLComponents(string: bindURL)?.queryItems?.first { $0.name == "token" }?.value)
        #expect(token.count >= 16)

        let watch = try CommandLineWatch(needle: token)
        defer { watch.stop() }
        // The watch sees a command line that holds the token: without this,
        // a watch that saw nothing would prove nothing.
        // One process that never forks: a shell forking for `sleep` showed the
        // token under its child's pid for an instant, which counted as a leak.
        let control = try RunningProcess("/usr/bin/python3", ["-c", "import time; time.sleep(30)", "control", token],
                                         environment: environment, directory: home, name: "control")
        try control.waitUntil("the watch sees the control process") { watch.sightings.contains { $0.pid == control.pid } }
        _ = control.stop(signal: SIGKILL)

        // The person confirms only once the watch has read all of /proc at
        // least once more while the link is being handled (the agent is
        // then mid-invoke, asking): the race at its most favourable to the
        // watch, however fast the agent or slow a loaded machine's /proc.
        let pinentry = try #require(agent.pinentry)
        let gate = home + "/confirm-gate"
        try ScriptedPinentry.makeGate(at: gate)
        try pinentry.answer(.allow, gate: gate)

        // `gio open` stands in for the browser, which holds the link in its
        // own memory; its own command line is the one place the link may be.
        let passesBefore = watch.passes
        let opener = try RunningProcess("/usr/bin/env", ["gio", "open", bindURL], environment: bus.environment, directory: home, name: "gio-open")
        #expect(opener.waitForExit(timeout: 60) == 0, "\(opener.standardError)")
        let busLog = bus.process
        try busLog.waitUntil("the agent asks the person", timeout: 90) { !pinentry.confirmations.isEmpty || busLog.standardError.contains("failed:") }
        try #require(!pinentry.confirmations.isEmpty, "the agent failed before asking: \(busLog.standardError)")
        let asked = watch.passes
        try busLog.waitUntil("the watch reads all of /proc while the person is asked") { watch.passes >= asked + 2 }
        try ScriptedPinentry.openGate(gate)
        try busLog.waitUntil("the activated agent binds the passkey", timeout: 90) {
            busLog.standardError.contains("bound a passkey for Alice") || busLog.standardError.contains("failed:")
        }
        let passesDuringTheInvoke = watch.passes
        watch.stop()
        #expect(busLog.standardError.contains("bound a passkey for Alice"), "\(busLog.standardError)")
        #expect(passesDuringTheInvoke - passesBefore >= 2, "the watch read all of /proc while the link was handled")

        let agentPID = try #require(try bus.owner(of: Self.applicationID, scratch: home), "the bus started the agent, which owns the name")
        let busAgent = try #require(DetachedProcess(pid: agentPID) {
            TextFile.read("/proc/\($0)/cmdline").contains("passkey-agent")
        }, "pid \(agentPID), the name's owner, is a passkey-agent")
        defer { busAgent.signal(SIGTERM) }

        let leaks = watch.sightings.filter { $0.pid != control.pid && $0.pid != opener.pid }
        #expect(leaks.isEmpty, "the binding token was on a command line: \(leaks)")
        // (The daemon's own lines name the launcher's command, cut short.)
        let agentLog = busLog.standardError.split(separator: "\n").filter { !$0.hasPrefix("dbus-daemon[") }.joined(separator: "\n")
        #expect(!agentLog.contains(token), "the agent's log never holds the token")
        #expect(pinentry.confirmations.count == 1, "the person was asked once, through pinentry: \(pinentry.confirmations)")

        // The link was spent by that bind: the agent (now on its socket too) refuses it again.
        let again = try agent.harness.passkey(["invoke", "-"], standardInput: bindURL, extraEnvironment: bus.environment)
        #expect(again.status != 0)
    }

    @Test("over D-Bus, a declined confirmation binds nothing and is not reported back; a link that fails is shown to the person through pinentry, without its query")
    func declinedAndFailedOpens() throws {
        let directory = try TemporaryDirectory.make(prefix: "session-bus")
        defer { TemporaryDirectory.remove(directory) }
        let bus = try SessionBus(runtimeDirectory: directory, environment: ProcessInfo.processInfo.environment, directory: directory)
        let provider = try LoginProvider.devserver()
        let agent = try VaultAgent(extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address], person: .deny)
        let home = agent.harness.home
        try FileManager.default.createDirectory(atPath: home + "/config/passkey-agent", withIntermediateDirectories: true)
        try ("[device]\ndefault = \"virtual\"\n\n" + InvokeThroughAgentTests.trustedApplication(provider))
            .write(toFile: home + "/config/passkey-agent/config.toml", atomically: true, encoding: .utf8)
        try agent.start()
        let log = try #require(agent.harness.process)
        try log.waitUntil("the agent owns the name") { log.standardError.contains("serving \(Self.applicationID)") }
        let pinentry = try #require(agent.pinentry)
        let launcher = try Self.installHandler(agent)

        let identity = try provider.adminPOST(InvokeThroughAgentTests.bi + "/identities",
                                              #"{"identity":{"display_name":"Bob","traits":{"username":"bob","primary_email_address":"bob@example.test"}}}"#,
                                              scratch: home)
        let id = try #require(identity["id"] as? String)
        let job = try provider.adminPOST(InvokeThroughAgentTests.bi + "/identities/\(id)/credential-binding-jobs",
                                         #"{"job":{"delivery_method":"RETURN"}}"#, scratch: home)
        let bindURL = try provider.location(of: try #require(job["credential_binding_link"] as? String), scratch: home)
        let declined = try ProcessResult.run("/usr/bin/env", ["gio", "open", bindURL], standardInput: nil, environment: launcher,
                                             scratch: home, timeout: 60)
        #expect(declined.status == 0, "the launcher is answered at once: \(declined.standardError)")
        try log.waitUntil("the declined bind ends") { log.standardError.contains("failed:") }
        #expect(!log.standardError.contains("bound a passkey"))
        #expect(pinentry.confirmations.count == 1, "asked once, and a decline is not reported back: \(pinentry.confirmations)")

        let stray = "io.github.passkey-agent:/callback?code=stray-code&state=stray-state"
        let failed = try ProcessResult.run("/usr/bin/env", ["gio", "open", stray], standardInput: nil, environment: launcher,
                                           scratch: home, timeout: 60)
        #expect(failed.status == 0, "\(failed.standardError)")
        try log.waitUntil("the notice is shown") { pinentry.confirmations.count == 2 }
        let notice = try #require(pinentry.confirmations.last)
        #expect(notice.contains("did not go through") && notice.contains("no login in progress"), "\(notice)")
        #expect(!notice.contains("stray-code") && !log.standardError.contains("stray-code") && !log.standardError.contains("stray-state"),
                "the query is neither logged nor shown")
    }

    @Test("an agent takes the handler's name only when nobody owns it: a second agent keeps serving its socket, the first keeps the name")
    func nameIsNeverTaken() throws {
        let directory = try TemporaryDirectory.make(prefix: "session-bus")
        defer { TemporaryDirectory.remove(directory) }
        let bus = try SessionBus(runtimeDirectory: directory, environment: ProcessInfo.processInfo.environment, directory: directory)
        let first = try VaultAgent(extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try first.start()
        let firstLog = try #require(first.harness.process)
        try firstLog.waitUntil("the first agent owns the name") { firstLog.standardError.contains("serving \(Self.applicationID)") }
        let second = try VaultAgent(extraEnvironment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        try second.start()
        let secondLog = try #require(second.harness.process)
        try secondLog.waitUntil("the second agent finds the name taken") { secondLog.standardError.contains("belongs to another program") }
        #expect(try bus.owner(of: Self.applicationID, scratch: directory) == firstLog.pid)
        #expect(try second.passkey(["status"]).status == 0, "the second agent serves its socket")
    }

    @Test("passkey invoke refuses a URL with a query on its command line and says to use standard input; without a query it still runs")
    func secretOnCommandLineRefused() throws {
        let agent = try VaultAgent()
        try agent.start()
        for url in ["http://127.0.0.1:9/v1/tenants/t/realms/r/identities/i/credential-binding-jobs/j:invokeAuthenticator?token=secret",
                    "io.github.passkey-agent:/invoke/bi-authenticate?request=eyJ.eyJ.sig", "io.github.passkey-agent:/callback#code=c"] {
            let refused = try agent.passkey(["invoke", url])
            #expect(refused.status == 64, "\(url): \(refused.standardError)")
            #expect(refused.standardError.contains("standard input"), "\(refused.standardError)")
        }
        let checked = try agent.passkey(["invoke", "--check", "-"],
                                        input: "http://127.0.0.1:9/v1/tenants/t/realms/r/identities/i/credential-binding-jobs/j:invokeAuthenticator?token=secret\n")
        #expect(checked.status == 0 && checked.standardOutput.contains("bind"), "\(checked.standardOutput)\(checked.standardError)")
        #expect(try agent.passkey(["invoke", "--check", "https://example.org/"]).status == 1)
        #expect(try agent.passkey(["invoke", "-"], input: "\n").status != 0)
    }

    @Test("the handler's files are valid; install-handler writes them for the user with absolute paths, and --uninstall removes them")
    func handlerFiles() throws {
        for file in ["\(Self.applicationID).desktop"] {
            let validate = try ProcessResult.run("/usr/bin/env", ["desktop-file-validate", Interop.packageRoot + "/Config/" + file],
                                                 standardInput: nil, environment: ProcessInfo.processInfo.environment,
                                                 scratch: NSTemporaryDirectory(), timeout: 30)
            #expect(validate.status == 0 && validate.standardOutput.isEmpty, "\(validate.standardOutput)\(validate.standardError)")
        }
        let service = try String(contentsOfFile: Interop.packageRoot + "/Config/\(Self.applicationID).service", encoding: .utf8)
        #expect(service.contains("[D-BUS Service]\nName=\(Self.applicationID)\n"))

        let agent = try VaultAgent()
        let home = agent.harness.home
        // What an earlier version installed: its Exec put each URL on a command line.
        try FileManager.default.createDirectory(atPath: home + "/data/applications", withIntermediateDirectories: true)
        try "[Desktop Entry]\nExec=passkey invoke %u\n".write(toFile: home + "/data/applications/passkey-invoke.desktop", atomically: true, encoding: .utf8)
        let installed = try agent.passkey(["install-handler"])
        #expect(installed.status == 0, "\(installed.standardError)")
        let desktopPath = home + "/data/applications/\(Self.applicationID).desktop"
        let servicePath = home + "/data/dbus-1/services/\(Self.applicationID).service"
        let desktop = try String(contentsOfFile: desktopPath, encoding: .utf8)
        #expect(desktop.contains("DBusActivatable=true\n"))
        #expect(desktop.contains("MimeType=x-scheme-handler/io.github.passkey-agent;"))
        #expect(desktop.contains("Exec=/") && desktop.contains("/passkey invoke %u"), "an absolute path to passkey")
        let written = try String(contentsOfFile: servicePath, encoding: .utf8)
        #expect(written.contains("Name=\(Self.applicationID)\n"))
        #expect(written.contains("Exec=/") && written.contains("/passkey-agent --foreground\n"), "\(written)")
        #expect(!written.contains("SystemdService="), "no passkey-agent.service unit is installed for this user")
        #expect(!FileManager.default.fileExists(atPath: home + "/data/applications/passkey-invoke.desktop"), "the old handler is gone")
        let revalidate = try ProcessResult.run("/usr/bin/env", ["desktop-file-validate", desktopPath], standardInput: nil,
                                               environment: ProcessInfo.processInfo.environment, scratch: home, timeout: 30)
        #expect(revalidate.status == 0, "\(revalidate.standardOutput)")
        let query = try ProcessResult.run("/usr/bin/env", ["xdg-mime", "query", "default", "x-scheme-handler/io.github.passkey-agent"], standardInput: nil,
                                          environment: agent.harness.environment, scratch: home, timeout: 30)
        #expect(query.standardOutput.contains("\(Self.applicationID).desktop"), "\(query.standardOutput)\(query.standardError)")

        // With the agent's systemd unit installed, the bus asks systemd to start it.
        try FileManager.default.createDirectory(atPath: home + "/config/systemd/user", withIntermediateDirectories: true)
        try "[Service]\n".write(toFile: home + "/config/systemd/user/passkey-agent.service", atomically: true, encoding: .utf8)
        #expect(try agent.passkey(["install-handler"]).status == 0)
        #expect(try String(contentsOfFile: servicePath, encoding: .utf8).contains("SystemdService=passkey-agent.service\n"))

        #expect(try agent.passkey(["install-handler", "--uninstall"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: desktopPath))
        #expect(!FileManager.default.fileExists(atPath: servicePath))
    }

    @Test("scripts/install puts the handler's .desktop and D-Bus service files in place with the installed programs' paths; --uninstall removes them")
    func installScript() throws {
        let root = try TemporaryDirectory.make(prefix: "install-handler")
        defer { TemporaryDirectory.remove(root) }
        let home = root + "/home", prefix = root + "/prefix"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        let environment = ["PATH": "/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": root + "/run", "LANG": "C.UTF-8"]
        let built = String(try ProgramPaths.built("passkey").dropLast("/passkey".count))
        func install(_ extra: [String]) throws -> ProcessResult {
            try ProcessResult.run("/bin/bash", [Interop.packageRoot + "/scripts/install", "--from", built, "--prefix", prefix, "--no-enable"] + extra,
                                  standardInput: nil, environment: environment, scratch: root, timeout: 120)
        }
        let installed = try install([])
        #expect(installed.status == 0, "\(installed.standardOutput)\(installed.standardError)")
        let desktopPath = home + "/.local/share/applications/\(Self.applicationID).desktop"
        let servicePath = home + "/.local/share/dbus-1/services/\(Self.applicationID).service"
        let desktop = try String(contentsOfFile: desktopPath, encoding: .utf8)
        #expect(desktop.contains("DBusActivatable=true\n") && desktop.contains("Exec=\(prefix)/bin/passkey invoke %u\n"), "\(desktop)")
        let service = try String(contentsOfFile: servicePath, encoding: .utf8)
        #expect(service.contains("Exec=\(prefix)/bin/passkey-agent --foreground\n") && !service.contains("@bindir@"), "\(service)")
        #expect(service.contains("SystemdService=passkey-agent.service\n"), "the install's unit is there for a systemd-started bus")
        let validate = try ProcessResult.run("/usr/bin/env", ["desktop-file-validate", desktopPath], standardInput: nil,
                                             environment: environment, scratch: root, timeout: 30)
        #expect(validate.status == 0 && validate.standardOutput.isEmpty, "\(validate.standardOutput)")
        let uninstalled = try install(["--uninstall"])
        #expect(uninstalled.status == 0, "\(uninstalled.standardOutput)\(uninstalled.standardError)")
        #expect(!FileManager.default.fileExists(atPath: desktopPath) && !FileManager.default.fileExists(atPath: servicePath))
    }
}
