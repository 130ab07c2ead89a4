import Locking
import Settings

#if canImport(Glibc)
import Glibc
#endif

/// config.toml as the running agent sees it: read at start, again on SIGHUP
/// and whenever the file changes (the daemon asks every few seconds; a
/// `stat` is all that costs). A file that no longer parses keeps the
/// settings in force — a half-saved edit must not reset the agent to its
/// defaults — and the failure is reported until the file is fixed.
public final class LiveSettings: Sendable {
    public let path: String
    private let state: Locked<State>

    private struct State {
        package var settings: Settings
        package var warnings: [SettingsWarning]
        package var failure: SettingsError?
        package var identity: FileIdentity?
    }

    /// What a reload found.
    public enum Outcome: Sendable, Equatable {
        case unchanged
        case reloaded(warnings: [SettingsWarning])
        /// The file is broken; the settings read before stay in force.
        case kept(SettingsError)
    }

    /// Reads the file once; a broken file at start is an error (nothing to keep).
    package init(path: String) throws(SettingsError) {
        self.path = path
        let identity = FileIdentity(path: path)
        let (settings, warnings) = try Settings.read(from: path)
        state = Locked(State(settings: settings, warnings: warnings, failure: nil, identity: identity))
    }

    public var current: Settings { state.withLock { $0.settings } }

    /// What in the file is ignored or broken, as a person should read it.
    public var problems: [String] {
        state.withLock { state in
            if let failure = state.failure { return ["\(failure.description) (the settings read before stay in force)"] }
            return state.warnings.map { "\(path) \($0.description)" }
        }
    }

    /// Reads the file again if it changed since the last read (or `force`).
    package func reload(force: Bool) -> Outcome {
        let identity = FileIdentity(path: path)
        if !force, state.withLock({ $0.identity == identity }) { return .unchanged }
        do {
            let (settings, warnings) = try Settings.read(from: path)
            state.withLock { $0 = State(settings: settings, warnings: warnings, failure: nil, identity: identity) }
            return .reloaded(warnings: warnings)
        } catch {
            state.withLock {
                $0.failure = error
                $0.identity = identity
            }
            return .kept(error)
        }
    }
}

/// Enough of a file's `stat` to notice that it was edited, replaced by a
/// rename (what editors do), re-pointed (a symlink) or removed.
package struct FileIdentity: Equatable {
    package var device: dev_t
    package var inode: ino_t
    package var size: off_t
    package var modified: timespec
    package var changed: timespec

    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = info.st_dev
        inode = info.st_ino
        size = info.st_size
        modified = info.st_mtim
        changed = info.st_ctim
    }

    package static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }
}
