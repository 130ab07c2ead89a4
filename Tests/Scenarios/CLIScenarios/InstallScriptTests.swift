import Foundation
import Testing
import TestSupport

/// scripts/install in a temporary prefix and HOME, from the programs this
/// test run built (`--from`: the debug build, so CI makes no release build
/// for it): every program, the units with this install's paths, private
/// directories, completions for three shells, a man page `man -l` renders
/// with an example for every verb, and the udev rules (in a directory of the
/// test's, as `--rules-dir` allows); the installed `passkey` answers
/// `--version` and finds `passkey-local` beside it; `--uninstall` leaves
/// nothing behind but what holds the user's data.
@Suite(.ownThreads) struct InstallScriptTests {
    static let programs = ["passkey", "passkey-local", "passkey-agent", "passkey-demo", "passkey-vcard", "passkey-devserver",
                           "git-credential-passkey", "docker-credential-passkey"]

    let root: String
    var home: String { root + "/home" }
    var prefix: String { root + "/prefix" }
    var rules: String { root + "/rules" }

    init() throws {
        root = try TemporaryDirectory.make(prefix: "install")
        for directory in [home, rules] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false) }
    }

    /// No user manager can answer: the runtime directory is the test's, and no session bus is named.
    var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": root + "/run", "LANG": "C.UTF-8"]
    }

    func install(_ arguments: [String]) throws -> ProcessResult {
        let built = String(try ProgramPaths.built("passkey").dropLast("/passkey".count))
        return try ProcessResult.run("/bin/bash", [Interop.packageRoot + "/scripts/install", "--from", built, "--prefix", prefix,
                                                   "--system-rules", "--rules-dir", rules] + arguments,
                                     standardInput: nil, environment: environment, scratch: NSTemporaryDirectory(), timeout: 120)
    }

    func run(_ program: String, _ arguments: [String]) throws -> ProcessResult {
        try ProcessResult.run(program, arguments, standardInput: nil, environment: environment,
                              scratch: NSTemporaryDirectory(), timeout: 60)
    }

    /// Every path under the test's directory, relative to it.
    func everything() -> Set<String> {
        Set(FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? [])
    }

    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("install, use, uninstall: nothing left behind")
    func installThenUninstall() throws {
        defer { TemporaryDirectory.remove(root) }
        let before = everything()
        let installed = try install([])
        #expect(installed.status == 0, "\(installed.standardOutput)\(installed.standardError)")
        #expect(installed.standardOutput.contains("no systemd user manager answers here: the socket is not enabled"))

        for program in Self.programs {
            #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/" + program), "\(program) installed")
        }
        let version = try run(prefix + "/bin/passkey", ["--version"])
        #expect(version.status == 0 && version.standardOutput.hasPrefix("passkey 0.1.0 (commit "), "\(version.standardOutput)\(version.standardError)")
        // Without an agent the light passkey execs passkey-local from its own directory.
        let status = try run(prefix + "/bin/passkey", ["status", "--no-agent", "--json"])
        #expect(status.status == 0, "the installed passkey runs passkey-local: \(status.standardError)")

        let service = try String(contentsOfFile: home + "/.config/systemd/user/passkey-agent.service", encoding: .utf8)
        #expect(service.contains("ExecStart=\(prefix)/bin/passkey-agent --foreground"))
        #expect(service.contains("Environment=XDG_CONFIG_HOME=\(home)/.config XDG_DATA_HOME=\(home)/.local/share XDG_STATE_HOME=\(home)/.local/state"))
        #expect(service.contains("ReadWritePaths=-\(home)/.local/share/passkey-agent "))
        #expect(!service.contains("%h/"), "no default path is left in the installed unit")
        #expect(FileManager.default.fileExists(atPath: home + "/.config/systemd/user/passkey-agent.socket"))
        // systemd's analyser reads the installed units as written (offline; ExecStart must exist).
        let units = home + "/.config/systemd/user/"
        let analyzerRuntime = try TemporaryDirectory.make(prefix: "install-analyze")
        defer { TemporaryDirectory.remove(analyzerRuntime) }
        var analyzerEnvironment = environment
        analyzerEnvironment["XDG_RUNTIME_DIR"] = analyzerRuntime  // --user wants one, and writes in it
        let verified = try ProcessResult.run("/usr/bin/systemd-analyze", ["verify", "--user", units + "passkey-agent.service",
                                                                          units + "passkey-agent.socket"],
                                             standardInput: nil, environment: analyzerEnvironment, scratch: NSTemporaryDirectory(), timeout: 60)
        #expect(verified.status == 0, "\(verified.standardOutput)\(verified.standardError)")
        for directory in [".local/share/passkey-agent", ".config/passkey-agent", ".local/state/passkey-agent", ".cache/passkey-agent"] {
            #expect(try mode(home + "/" + directory) == 0o700, "\(directory) is private")
        }

        let bash = try String(contentsOfFile: prefix + "/share/bash-completion/completions/passkey", encoding: .utf8)
        let zsh = try String(contentsOfFile: prefix + "/share/zsh/site-functions/_passkey", encoding: .utf8)
        let fish = try String(contentsOfFile: prefix + "/share/fish/vendor_completions.d/passkey.fish", encoding: .utf8)
        #expect(bash.contains("-F _passkey passkey") && bash.contains("unlock"), "bash completion")
        #expect(zsh.hasPrefix("#compdef passkey") && zsh.contains("unlock"), "zsh completion")
        #expect(fish.contains("complete -c 'passkey'") && fish.contains("unlock"), "fish completion")
        #expect(FileManager.default.fileExists(atPath: rules + "/70-passkey-agent.rules"))

        // man renders the installed page, and every verb has an example.
        let page = prefix + "/share/man/man1/passkey.1"
        let man = try run("/usr/bin/man", ["-l", page])
        #expect(man.status == 0, "\(man.standardError)")
        #expect(man.standardError.isEmpty, "man -l warns: \(man.standardError)")
        let examples = try #require(man.standardOutput.components(separatedBy: "\nEXAMPLES\n").last)
        for verb in ["passkey status", "passkey devices", "passkey pin set", "passkey webauthn create", "passkey signin",
                     "passkey card setup", "passkey vault init", "passkey unlock", "passkey token get", "passkey token rm"] {
            #expect(examples.contains("   \(verb)\n") && examples.contains("$ \(verb)"), "an example of \(verb) under EXAMPLES")
        }
        let warnings = try run("/usr/bin/groff", ["-mandoc", "-Tutf8", "-ww", "-z", page])
        #expect(warnings.status == 0 && warnings.standardError.isEmpty, "groff: \(warnings.standardError)")

        let uninstalled = try install(["--uninstall"])
        #expect(uninstalled.status == 0, "\(uninstalled.standardOutput)\(uninstalled.standardError)")
        #expect(everything() == before, "left behind: \(everything().subtracting(before).sorted())")
    }

    @Test("uninstall keeps a vault, and only what holds it")
    func uninstallKeepsTheVault() throws {
        defer { TemporaryDirectory.remove(root) }
        #expect(try install([]).status == 0)
        let vault = home + "/.local/share/passkey-agent/vault"
        try "not ours".write(toFile: vault, atomically: false, encoding: .utf8)
        let uninstalled = try install(["--uninstall"])
        #expect(uninstalled.status == 0, "\(uninstalled.standardError)")
        #expect(uninstalled.standardOutput.contains("kept \(home)/.local/share/passkey-agent/"))
        #expect(uninstalled.standardOutput.contains("Your vault, settings and log are never removed"))
        #expect(everything() == ["home", "rules", "home/.local", "home/.local/share", "home/.local/share/passkey-agent",
                                 "home/.local/share/passkey-agent/vault"])
    }

    /// The manifest is a file in the user's data directory: whoever could
    /// write it once made --uninstall delete anything the user may delete,
    /// and run `sudo rm -f` on any path named as a `rule`.
    @Test("a crafted manifest deletes nothing outside the install, and no rule but the install's own")
    func aCraftedManifestDeletesNothingElse() throws {
        defer { TemporaryDirectory.remove(root) }
        #expect(try install([]).status == 0)
        let outside = root + "/outside"
        try FileManager.default.createDirectory(atPath: outside + "/empty", withIntermediateDirectories: true)
        let precious = [outside + "/precious", outside + "/70-passkey-agent.rules", prefix + "/bin/mytool",
                        home + "/.local/share/passkey-agent/vault", home + "/.config/systemd/user/other.service"]
        for path in precious { try "not the install's".write(toFile: path, atomically: false, encoding: .utf8) }
        let manifest = prefix + "/share/passkey-agent-install/manifest"
        let crafted = ["file \(outside)/precious", "file \(prefix)/bin/mytool", "file \(prefix)/bin/../../outside/precious",
                       "file \(home)/.local/share/passkey-agent/vault", "file \(home)/.config/systemd/user/other.service",
                       "rule \(outside)/70-passkey-agent.rules", "link \(outside)/precious", "dir \(outside)/empty",
                       "file relative/precious"]
        let handle = try #require(FileHandle(forWritingAtPath: manifest))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((crafted.joined(separator: "\n") + "\n").utf8))
        try handle.close()

        let uninstalled = try install(["--uninstall"])
        #expect(uninstalled.status != 0, "the crafted entries are reported as an error")
        for entry in crafted {
            #expect(uninstalled.standardError.contains("not removed: \(entry)"), "\(entry) refused: \(uninstalled.standardError)")
        }
        for path in precious { #expect(FileManager.default.fileExists(atPath: path), "\(path) is still there") }
        #expect(FileManager.default.fileExists(atPath: outside + "/empty"))
        // What the install did put there is gone all the same.
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin/passkey"))
        #expect(!FileManager.default.fileExists(atPath: rules + "/70-passkey-agent.rules"))
    }

    @Test("a symlinked manifest, or one not the user's, is refused: nothing is deleted")
    func aManifestThatIsNotTheUsersOwnIsRefused() throws {
        defer { TemporaryDirectory.remove(root) }
        #expect(try install([]).status == 0)
        let manifest = prefix + "/share/passkey-agent-install/manifest"
        let elsewhere = root + "/elsewhere-manifest"
        let victim = root + "/victim"
        try "keep me".write(toFile: victim, atomically: false, encoding: .utf8)
        try "file \(victim)\nfile \(prefix)/bin/passkey\n".write(toFile: elsewhere, atomically: false, encoding: .utf8)
        try FileManager.default.removeItem(atPath: manifest)
        try FileManager.default.createSymbolicLink(atPath: manifest, withDestinationPath: elsewhere)

        let refused = try install(["--uninstall"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("is a symlink, not a regular file, or not yours"), "\(refused.standardError)")
        #expect(FileManager.default.fileExists(atPath: victim))
        #expect(FileManager.default.fileExists(atPath: prefix + "/bin/passkey"), "nothing at all was removed")
        // An install would append to it: refused too.
        #expect(try install([]).status != 0)
        #expect(try String(contentsOfFile: elsewhere, encoding: .utf8) == "file \(victim)\nfile \(prefix)/bin/passkey\n")

        // A regular manifest owned by another user (tests run as root in CI, where this is possible).
        if getuid() == 0 {
            try FileManager.default.removeItem(atPath: manifest)
            try FileManager.default.copyItem(atPath: elsewhere, toPath: manifest)
            #expect(chown(manifest, 65534, 65534) == 0)
            let foreign = try install(["--uninstall"])
            #expect(foreign.status != 0)
            #expect(foreign.standardError.contains("not yours"), "\(foreign.standardError)")
            #expect(FileManager.default.fileExists(atPath: victim))
        }
    }

    @Test("a second install over the first, then one uninstall, leaves nothing")
    func reinstall() throws {
        defer { TemporaryDirectory.remove(root) }
        #expect(try install([]).status == 0)
        #expect(try install([]).status == 0)
        #expect(try install(["--uninstall"]).status == 0)
        #expect(everything() == ["home", "rules"])
    }
}
