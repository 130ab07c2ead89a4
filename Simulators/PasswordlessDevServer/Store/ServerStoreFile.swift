import DevServerBase
import SecureFiles

/// The state file in the data directory, a `SecureFile`: written atomically
/// (a crash leaves the old state or the new, never a torn one), 0600 in a
/// directory that must stay 0700, since the file holds the app's secret.
///
/// A lock file (flock), held for the devserver's whole run, keeps a second
/// devserver off the same directory: the store lives in memory and is
/// written whole after each change, so two servers on one file would undo
/// each other's writes, and there is nothing sound to merge (see
/// docs/DEVSERVER.md). Temporary files a crashed server left go at start.
final class ServerStoreFile: Sendable {
    static let fileName = "devserver.json"
    static let lockName = "devserver.lock"
    /// A state file larger than this is refused rather than read into memory.
    static let maxSize = 64 * 1024 * 1024

    let directory: String
    var path: String { directory + "/" + Self.fileName }
    private let lock: FileLock

    /// Creates the directory (0700) when missing, refuses one that others can
    /// reach, and takes the lock.
    init(directory: String) throws(DevServerError) {
        self.directory = directory
        do { try SecureDirectory.requirePrivate(directory) } catch {
            throw .dataDirectory(path: directory, reason: error.reason(about: directory))
        }
        let lock: FileLock?
        do { lock = try FileLock.acquire(directory + "/" + Self.lockName) } catch {
            throw .dataDirectory(path: directory, reason: "lock file: \(error.reason)")
        }
        guard let lock else { throw .dataDirectoryInUse(path: directory) }
        self.lock = lock
        SecureFile.removeStaleTemporaryFiles(in: directory, target: Self.fileName)
    }

    /// Lets another devserver take the directory once this one has stopped.
    func unlock() {
        lock.release()
    }

    /// The file's bytes, or nil when there is no state yet. A file that others
    /// can read is refused: the error says which chmod fixes it.
    func load() throws(DevServerError) -> [UInt8]? {
        do { return try SecureFile.readPrivate(path, limit: Self.maxSize) } catch {
            throw .stateFile(path: path, reason: error.reason)
        }
    }

    /// Replaces the file atomically with `bytes`.
    func save(_ bytes: [UInt8]) throws(DevServerError) {
        do { try SecureFile.write(bytes, to: path) } catch {
            throw .stateFile(path: path, reason: error.reason(about: path))
        }
    }
}
