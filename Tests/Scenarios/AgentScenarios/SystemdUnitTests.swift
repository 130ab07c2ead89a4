import Foundation
import Testing
import TestSupport

/// The systemd user units as shipped in Config/: systemd's own analyser
/// reads them (offline: no running systemd is needed) and rates the
/// sandbox; the hardening a per-user manager can apply is there, and
/// nothing it refuses (UserManagerDeploymentTests runs the unit for real).
@Suite(.ownThreads) struct SystemdUnitTests {
    private let unit = Interop.packageRoot + "/Config/passkey-agent.service"

    private func analyze(_ arguments: [String]) throws -> ProcessResult {
        let scratch = try TemporaryDirectory.make(prefix: "systemd-analyze")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // --user needs a runtime directory even offline.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = scratch
        return try ProcessResult.run("/usr/bin/systemd-analyze", arguments, standardInput: nil,
                                     environment: environment, scratch: scratch, timeout: 60)
    }

    /// The unit's `Key=value` lines (comments and section headers left out).
    private func directives() throws -> [(key: String, value: String)] {
        try String(contentsOfFile: unit, encoding: .utf8).split(separator: "\n").compactMap { line in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.hasPrefix("#"), !text.hasPrefix("["), let equals = text.firstIndex(of: "=") else { return nil }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
    }

    @Test func theServiceIsSandboxedAsSystemdAsks() throws {
        let result = try analyze(["security", "--offline=yes", "--user", "--json=short", unit])
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        let passed = Set(rows.compactMap { row -> String? in
            guard row["set"] as? Bool == true, let name = row["name"] as? String else { return nil }
            return name
        })
        for setting in ["PrivateUsers=", "ProtectSystem=", "PrivateTmp=", "PrivateMounts=",
                        "SystemCallFilter=~@privileged", "SystemCallFilter=~@resources", "SystemCallFilter=~@clock",
                        "SystemCallFilter=~@mount", "SystemCallFilter=~@module", "SystemCallFilter=~@reboot",
                        "SystemCallFilter=~@swap", "SystemCallFilter=~@raw-io", "SystemCallFilter=~@debug",
                        "RestrictNamespaces=~user", "RestrictNamespaces=~mnt", "RestrictSUIDSGID=", "ProtectHostname=",
                        "NoNewPrivileges=", "MemoryDenyWriteExecute=", "KeyringMode=", "UMask="] {
            #expect(passed.contains(setting), "systemd-analyze security: \(setting) is not set")
        }
    }

    @Test("nothing a per-user manager refuses or that hides /run from the agent")
    func nothingAUserManagerRefuses() throws {
        let keys = Set(try directives().map(\.key))
        // 218/CAPABILITIES outside a user namespace (the user manager has no
        // CAP_SETPCAP); PrivateIPC= 226/NAMESPACE inside one.
        for refused in ["CapabilityBoundingSet", "ProtectKernelModules", "ProtectKernelLogs", "ProtectClock", "PrivateIPC"] {
            #expect(!keys.contains(refused), "\(refused)= is in the unit, and a user manager refuses it")
        }
        // Accepted, but they lay an empty tmpfs over /run in the unit's namespace:
        // the socket's directory, pcscd's socket and udev's database disappear.
        for hiding in ["ProtectKernelTunables", "ProtectControlGroups", "ProtectProc", "ProcSubset"] {
            #expect(!keys.contains(hiding), "\(hiding)= hides /run from the agent under a user manager")
        }
        // Without it systemd skips the mount sandboxing of a user unit silently.
        #expect(try directives().contains { $0.key == "PrivateUsers" && $0.value == "yes" })
    }

    @Test("the agent's data, config, state, cache and runtime directories stay writable, nothing else in the home")
    func itsOwnDirectoriesAreWritable() throws {
        let writable = try directives().filter { $0.key == "ReadWritePaths" }
            .flatMap { $0.value.split(separator: " ").map(String.init) }
        #expect(Set(writable) == ["-%h/.local/share/passkey-agent", "-%h/.config/passkey-agent",
                                  "-%h/.local/state/passkey-agent", "-%h/.cache/passkey-agent",
                                  "-%t/passkey-agent"], "and the runtime directory, where a login's launch page is written")
        #expect(try directives().contains { $0.key == "ProtectHome" && $0.value == "read-only" })
        let environment = try directives().filter { $0.key == "Environment" }.map(\.value).joined(separator: " ")
        #expect(environment.contains("XDG_CACHE_HOME=%h/.cache"), "the cache the sandbox opens is the one the agent uses")
    }

    @Test("no setting on the command line: config.toml decides, as `passkey status` shows")
    func theCommandLineCarriesNoSetting() throws {
        let start = try directives().filter { $0.key == "ExecStart" }.map(\.value)
        #expect(start == ["%h/.local/bin/passkey-agent --foreground"])
    }

    @Test func theExposureIsRecorded() throws {
        // 10 is an unprotected service. docs/RELIABILITY.md ("Issue 25") says
        // why a user unit scores 5.4: most of it is the capability rows, which
        // systemd-analyze counts although the agent holds no capability.
        let result = try analyze(["security", "--offline=yes", "--user", "--threshold=54", unit])
        #expect(result.status == 0, "overall exposure above 5.4 (threshold 54):\n\(result.standardOutput)")
    }

    @Test func bothUnitsParse() throws {
        // verify wants ExecStart to exist: check a copy pointing at the built agent.
        let scratch = try TemporaryDirectory.make(prefix: "units")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let agent = try ProgramPaths.built("passkey-agent")
        let service = try String(contentsOfFile: unit, encoding: .utf8)
            .replacingOccurrences(of: "%h/.local/bin/passkey-agent", with: agent)
        try service.write(toFile: scratch + "/passkey-agent.service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: Interop.packageRoot + "/Config/passkey-agent.socket",
                                         toPath: scratch + "/passkey-agent.socket")
        let result = try analyze(["verify", "--user", scratch + "/passkey-agent.service", scratch + "/passkey-agent.socket"])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        // systemd ignores a line it cannot parse, with a warning and status 0: none may be there.
        #expect(result.standardError.isEmpty && result.standardOutput.isEmpty, "systemd-analyze verify warns: \(result.standardError)")
    }
}
