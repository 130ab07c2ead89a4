import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway non-root user with a real `systemd --user` of its own, as a
/// person's login session has (docs/RELIABILITY.md, "Issue 25"), made where
/// PID 1 is not systemd: the marker directories systemd checks, a cgroup v2
/// subtree the user owns, `runuser` into `systemd --user`. Needs root.
/// `stop()` (also run on deinit) ends every process in the subtree by PID,
/// removes the subtree, the user and its directories.
public final class UserManager: @unchecked Sendable {
    public let user: String
    public let home: String
    /// The user's `$XDG_RUNTIME_DIR` (0700, theirs): sockets live here.
    public private(set) var runtimeDirectory = ""
    /// The cgroup v2 directory the manager and all it starts run in.
    public let cgroup: String
    /// Output of the commands run as the user, and the manager's own.
    public let scratch: String
    private var manager: RunningProcess?
    private var stopped = false

    /// Creates the user and starts its manager; waits until it is `running`
    /// (or `degraded`), failing with what it printed if it never gets there.
    public init(timeout: TimeInterval = 30) throws(HarnessError) {
        guard getuid() == 0 else {
            throw HarnessError("a user manager for a throwaway user needs root (CI runs the tests as root)")
        }
        scratch = try TemporaryDirectory.make(prefix: "user-manager")
        // Short and random: useradd takes 32 characters, and runs may overlap.
        var random = SystemRandomNumberGenerator()
        user = "pkum" + String(random.next() & 0xFFFFFF, radix: 16)
        home = "/home/" + user
        cgroup = try Self.cgroupRoot() + "/" + user
        do throws(HarnessError) {
            try Self.run(["/usr/sbin/useradd", "--create-home", "--shell", "/bin/sh", user], scratch: scratch)
            // /run/user/UID, as pam_systemd makes it: not under /tmp, which a
            // unit's PrivateTmp= replaces.
            guard let uid = Self.uid(of: user) else { throw HarnessError("useradd made no \(user)") }
            guard mkdir("/run/user", 0o755) == 0 || errno == EEXIST else { throw HarnessError.system("mkdir /run/user") }
            // A directory left by an earlier user of this uid is stale: the uid is new.
            TemporaryDirectory.remove("/run/user/\(uid)")
            guard mkdir("/run/user/\(uid)", 0o700) == 0 else { throw HarnessError.system("mkdir /run/user/\(uid)") }
            runtimeDirectory = "/run/user/\(uid)"
            // What PID 1 makes on a booted system: the marker `systemd --user`
            // checks, and the directory in which a unit's mount namespace is
            // assembled (without it every ProtectSystem=/PrivateTmp= unit
            // fails with 226/NAMESPACE).
            for directory in ["/run/systemd", "/run/systemd/system", "/run/systemd/unit-root"] {
                guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { throw HarnessError.system("mkdir \(directory)") }
            }
            try Self.run(["/bin/chown", "\(user):", runtimeDirectory], scratch: scratch)
            guard mkdir(cgroup, 0o755) == 0 else { throw HarnessError.system("mkdir \(cgroup)") }
            try Self.run(["/bin/chown", "-R", "\(user):", cgroup], scratch: scratch)
            // The shell enters the subtree, then becomes runuser, which starts the manager inside it.
            let script = "echo $$ > \"$1/cgroup.procs\" && user=\"$2\" && shift 2 && exec /usr/sbin/runuser -u \"$user\" -- /usr/bin/env -i \"$@\""
            let environment = Self.userEnvironment(user: user, home: home, runtime: runtimeDirectory).map { "\($0.key)=\($0.value)" }
            manager = try RunningProcess("/bin/sh", ["-c", script, "sh", cgroup, user] + environment + ["/lib/systemd/systemd", "--user"],
                                         environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], directory: scratch, name: "manager")
            try waitUntilRunning(timeout: timeout)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// `$XDG_RUNTIME_DIR`, `$HOME` and a `PATH` that starts at `~/.local/bin`, as a login gives.
    private static func userEnvironment(user: String, home: String, runtime: String) -> [String: String] {
        ["HOME": home, "USER": user, "LOGNAME": user, "XDG_RUNTIME_DIR": runtime,
         "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(runtime)/bus",
         "PATH": "\(home)/.local/bin:/usr/local/bin:/usr/bin:/bin"]
    }

    /// Runs `arguments` as the user, in a clean environment of their session
    /// (plus `extra`), from their home directory.
    public func run(_ arguments: [String], extra: [String: String] = [:], standardInput: String? = nil,
                    timeout: TimeInterval = 60) throws(HarnessError) -> ProcessResult {
        let environment = Self.userEnvironment(user: user, home: home, runtime: runtimeDirectory)
            .merging(extra) { _, given in given }.map { "\($0.key)=\($0.value)" }.sorted()
        let script = "cd \"$HOME\" 2>/dev/null; exec \"$@\""
        return try ProcessResult.run("/usr/sbin/runuser", ["-u", user, "--", "/usr/bin/env", "-i"] + environment
                                        + ["/bin/sh", "-c", script, "sh"] + arguments,
                                     standardInput: standardInput, environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"],
                                     scratch: scratch, timeout: timeout)
    }

    /// `systemctl --user …` as the user.
    public func systemctl(_ arguments: [String]) throws(HarnessError) -> ProcessResult {
        try run(["systemctl", "--user"] + arguments)
    }

    /// `systemctl --user show -p …` as a dictionary (`ExecMainStatus`, `Result`, `ActiveState`, `MainPID`).
    public func show(_ unit: String, _ properties: [String] = ["ExecMainStatus", "Result", "ActiveState", "MainPID"]) throws(HarnessError) -> [String: String] {
        let result = try systemctl(["show", "-p", properties.joined(separator: ","), unit])
        guard result.status == 0 else { throw HarnessError("systemctl --user show \(unit) failed: \(result.standardError)") }
        var values: [String: String] = [:]
        for line in result.standardOutput.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    /// Waits (polling the manager's own answer) until `condition` holds for `unit`'s properties.
    public func waitFor(_ unit: String, _ what: String, timeout: TimeInterval = 60,
                        _ condition: ([String: String]) -> Bool) throws(HarnessError) -> [String: String] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var last: [String: String] = [:]
        while ContinuousClock.now < deadline {
            last = try show(unit)
            if condition(last) { return last }
            usleep(100_000)
        }
        throw HarnessError("timed out waiting for \(unit) to \(what); last seen \(last)")
    }

    /// The PIDs of the user's processes whose executable is named `name` (from /proc).
    public func processes(named name: String) -> [pid_t] {
        processesOfUser().filter { pid in
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
            let base = executable.split(separator: "/").last.map(String.init) ?? ""
            return base == name || base == name + " (deleted)"
        }
    }

    /// Every process the user runs (from /proc's owners).
    private func processesOfUser() -> [pid_t] {
        guard let uid = Self.uid(of: user),
              let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { pid_t($0) }.filter { pid in
            var info = stat()
            return stat("/proc/\(pid)", &info) == 0 && info.st_uid == uid
        }
    }

    private func waitUntilRunning(timeout: TimeInterval) throws(HarnessError) {
        let deadline = ContinuousClock.now + .seconds(timeout)
        var answer = ""
        while ContinuousClock.now < deadline {
            if let status = manager?.poll() {
                throw HarnessError("systemd --user exited (\(status)) before it ran: \(manager?.standardOutput ?? "")\(manager?.standardError ?? "")")
            }
            let result = try systemctl(["is-system-running"])
            answer = result.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
            if answer == "running" || answer == "degraded" { return }
            usleep(100_000)
        }
        throw HarnessError("systemd --user did not come up within \(Int(timeout)) s (is-system-running: \(answer)); it said: \(manager?.standardError ?? "")")
    }

    /// Ends every process of the subtree (the manager and all it started) by
    /// PID — SIGTERM, then SIGKILL after 5 s — removes the subtree deepest
    /// first, then the user, its home and the runtime directory.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        let deadline = ContinuousClock.now + .seconds(10)
        var signal = SIGTERM
        while true {
            let pids = processesInSubtree()
            if pids.isEmpty { break }
            for pid in pids { kill(pid, signal) }
            if ContinuousClock.now > deadline - .seconds(5) { signal = SIGKILL }
            if ContinuousClock.now > deadline { break }
            _ = manager?.poll()
            usleep(50_000)
        }
        manager?.stop(signal: SIGKILL)
        for directory in subtreeDirectories().reversed() { rmdir(directory) }
        // Anything the user still runs outside the subtree (nothing should) goes too, by PID, then the user.
        for pid in processesOfUser() { kill(pid, SIGKILL) }
        _ = try? Self.run(["/usr/sbin/userdel", "--remove", user], scratch: scratch, allowFailure: true)
        if !runtimeDirectory.isEmpty { TemporaryDirectory.remove(runtimeDirectory) }
        TemporaryDirectory.remove(scratch)
    }

    /// The subtree's directories, parents before children.
    private func subtreeDirectories() -> [String] {
        var found: [String] = []
        guard FileManager.default.fileExists(atPath: cgroup) else { return found }
        found.append(cgroup)
        var index = 0
        while index < found.count {
            let directory = found[index]
            index += 1
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                var info = stat()
                let path = directory + "/" + entry
                if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { found.append(path) }
            }
        }
        return found
    }

    private func processesInSubtree() -> [pid_t] {
        subtreeDirectories().flatMap { directory in
            TextFile.read(directory + "/cgroup.procs").split(separator: "\n").compactMap { pid_t($0) }
        }
    }

    /// Where a cgroup v2 hierarchy is mounted: beside the v1 ones
    /// (`/sys/fs/cgroup/unified`, a hybrid layout, as here) or alone at /sys/fs/cgroup.
    private static func cgroupRoot() throws(HarnessError) -> String {
        for root in ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"]
        where FileManager.default.fileExists(atPath: root + "/cgroup.procs") && FileManager.default.fileExists(atPath: root + "/cgroup.stat") {
            return root
        }
        throw HarnessError("no cgroup v2 hierarchy at /sys/fs/cgroup/unified or /sys/fs/cgroup: systemd --user cannot run")
    }

    private static func uid(of user: String) -> uid_t? {
        guard let entry = getpwnam(user) else { return nil }
        return entry.pointee.pw_uid
    }

    private static func run(_ arguments: [String], scratch: String, allowFailure: Bool = false) throws(HarnessError) {
        let result = try ProcessResult.run(arguments[0], Array(arguments.dropFirst()), standardInput: nil,
                                           environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], scratch: scratch, timeout: 30)
        if result.status != 0 && !allowFailure {
            throw HarnessError("\(arguments.joined(separator: " ")) failed (\(result.status)): \(result.standardError)")
        }
    }
}
