import AgentProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Replaces this process with a command, as `env` and `exec` do: no shell
/// reads its words, and the process its caller waits for becomes the
/// command itself, so its exit status (or the signal that ended it) is the
/// caller's to see, with nothing in between to forward signals or lose them.
enum ProgramReplacement {
    /// Runs `arguments` (the first names the program, looked up on PATH when
    /// it has no `/`) with `environment`; returns only when no program
    /// could be run, with the error and the shell's exit status for it
    /// (127 not found, 126 found but not runnable).
    static func exec(_ arguments: [String], environment: [String: String]) -> (AgentError, Int32) {
        guard let name = arguments.first, !name.isEmpty else {
            return (AgentError(.invalidInput, "no command was given after `--`"), ExitStatus.usage)
        }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            // The environment holds the token: cleared before it is freed.
            for entry in envp { if let entry { memset(entry, 0, strlen(entry)) }; free(entry) }
        }
        var failure: Int32 = ENOENT
        search: for candidate in candidates(for: name, path: environment["PATH"]) {
            execve(candidate, argv, envp)
            // Keep looking past a directory that lacks it; remember "found but
            // not runnable" so that it is reported rather than "not found".
            switch errno {
            case ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG: continue
            case EACCES: failure = EACCES
            default: failure = errno; break search
            }
        }
        let reason = String(cString: strerror(failure))
        return (AgentError(failure == ENOENT ? .notFound : .invalidInput, "cannot run \(name): \(reason)"),
                failure == ENOENT ? 127 : 126)
    }

    /// `name` itself when it names a path, else `DIR/name` for each PATH
    /// directory (an empty entry is the current directory, as POSIX says);
    /// PATH unset means the system's directories.
    static func candidates(for name: String, path: String?) -> [String] {
        if name.contains("/") { return [name] }
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false)
        return directories.map { $0.isEmpty ? name : "\($0)/\(name)" }
    }
}
