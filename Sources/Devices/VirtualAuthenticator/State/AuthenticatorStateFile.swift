import DecodingErrors
import FoundationEssentials
import SecureFiles
import WebAuthn

#if canImport(Glibc)
import Glibc
#endif

/// The one JSON file that holds an authenticator's state, shared by every
/// process that opens it (the agent and `passkey --no-agent` at once).
///
/// It holds private keys, so it is a `SecureFile`: 0600 in a directory
/// created 0700, every write atomic, so a crash at any instant leaves the old
/// or the new state, never a torn one; it is read only when it is a regular
/// file of ours that no one else can open. A file that exists but cannot be
/// read or parsed is an error naming the file; it is never silently replaced.
///
/// Two processes can both be right — each registers credentials, each moves
/// the signature counter and the retry counters — so a write is never "mine
/// replaces yours": every change happens under an flock on `<path>.lock`, on
/// the state as the file has it at that moment (`changedState()`), and the
/// result is written before the lock is let go. The engine's `exclusively`
/// does this; the lock file's generation number says whether the file
/// changed since this process last read or wrote it.
final class AuthenticatorStateFile {
    let path: String
    private let lock: FileLock
    /// What the file was when this instance last read or wrote it.
    private var seen: Stamp?

    /// Larger than any state this authenticator writes (100 credentials ≈ 60 KiB).
    static let maximumBytes = 4 << 20

    /// Creates the directory (0700) when missing and opens the lock file.
    init(path: String) throws(VirtualAuthenticatorError) {
        self.path = path
        do {
            try SecureDirectory.create(SecureDirectory.parent(of: path))
            lock = try FileLock.open(path + ".lock")
        } catch {
            throw .stateNotWritable(path: path, reason: error.reason(about: path))
        }
    }

    /// The state on disk, under the lock; a first use writes `fresh()` —
    /// the master secret must be on disk before any credential id exists,
    /// and authenticators starting at once must agree on it. Temporary files
    /// a crashed writer left are removed first.
    func loadOrCreate(_ fresh: () -> AuthenticatorState) throws(VirtualAuthenticatorError) -> AuthenticatorState {
        try lockExclusively()
        defer { unlock() }
        SecureFile.removeStaleTemporaryFiles(in: SecureDirectory.parent(of: path), target: SecureDirectory.name(of: path))
        let stamp = currentStamp()
        if let document = try load() {
            seen = stamp
            return try AuthenticatorState(persisted: document, path: path)
        }
        let state = fresh()
        try save(state.persisted())
        return state
    }

    /// Waits (boundedly) for the lock; every change to the file happens while holding it.
    func lockExclusively() throws(VirtualAuthenticatorError) {
        do { try lock.lock() } catch { throw .stateNotWritable(path: path, reason: error.reason(about: lock.path)) }
    }

    func unlock() { lock.release() }

    /// Under the lock: the state as the file has it, when another process
    /// changed it since this instance last read or wrote it; nil otherwise
    /// (or when the file is gone: the next save writes it again).
    func changedState() throws(VirtualAuthenticatorError) -> AuthenticatorState? {
        let stamp = currentStamp()
        guard stamp != seen else { return nil }
        guard let document = try load() else {
            seen = stamp
            return nil
        }
        let state = try AuthenticatorState(persisted: document, path: path)
        seen = stamp
        return state
    }

    /// Under the lock: replaces the state file atomically.
    func save(_ state: PersistedState) throws(VirtualAuthenticatorError) {
        let bytes = try encode(state)
        do {
            try lock.advanceGeneration()
            try SecureFile.write(bytes, to: path)
        } catch {
            throw stateError(error)
        }
        seen = currentStamp()
    }

    /// The stored state, or nil if there is no file.
    private func load() throws(VirtualAuthenticatorError) -> PersistedState? {
        let stored: [UInt8]?
        do { stored = try SecureFile.readPrivate(path, limit: Self.maximumBytes) } catch { throw stateError(error) }
        guard let bytes = stored else { return nil }
        if bytes.isEmpty { throw .stateCorrupt(path: path, reason: "the file is empty") }
        do {
            return try JSONDecoder().decode(PersistedState.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw .stateCorrupt(path: path, reason: Self.describe(error))
        } catch {
            throw .stateCorrupt(path: path, reason: "not valid JSON")
        }
    }

    private func encode(_ state: PersistedState) throws(VirtualAuthenticatorError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do { return Array(try encoder.encode(state)) } catch {
            throw .stateNotWritable(path: path, reason: "cannot encode the state")
        }
    }

    /// The lock's generation and the file's identity: a writer that follows
    /// this protocol changes the first, one that does not (a restored
    /// backup, an older build) almost surely the second.
    private struct Stamp: Equatable {
        var generation: UInt64
        var device: UInt64, inode: UInt64, size: Int64
        var modified: Int64, modifiedNanoseconds: Int64, changed: Int64, changedNanoseconds: Int64
    }

    private func currentStamp() -> Stamp {
        var info = stat()
        if lstat(path, &info) != 0 { info = stat() }
        return Stamp(generation: lock.generation(), device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                     size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec),
                     modifiedNanoseconds: Int64(info.st_mtim.tv_nsec), changed: Int64(info.st_ctim.tv_sec),
                     changedNanoseconds: Int64(info.st_ctim.tv_nsec))
    }

    /// A file-level failure in this layer's terms.
    private func stateError(_ error: SecureFileError) -> VirtualAuthenticatorError {
        switch error {
        case .unreadable, .notPrivate: return .stateUnreadable(path: path, reason: error.reason(about: path))
        case .tooLarge: return .stateCorrupt(path: path, reason: error.reason)
        case .notWritable: return .stateNotWritable(path: path, reason: error.reason(about: path))
        }
    }

    /// Names the JSON member that failed, never its value (values are secrets).
    static func describe(_ error: DecodingError) -> String {
        guard let problem = DecodingProblem(error) else { return "not a valid state document" }
        let at = problem.path.isEmpty ? "the top level" : problem.path
        switch problem.kind {
        case .missing(let member):
            return "member \(member) is missing" + (problem.path.isEmpty ? "" : " in \(at)")
        case .wrongType, .null:
            return "\(at) has the wrong type"
        case .invalid:
            return problem.path.isEmpty ? "not valid JSON" : "\(at) is not valid"
        }
    }
}
