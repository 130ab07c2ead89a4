import SecureFiles
import Locking

/// Reads and writes the card's state file: one JSON document, a `SecureFile`
/// (0600 in a directory created 0700, replaced atomically), so a crash at any
/// instant leaves the old state or the new one, never a torn file. It holds
/// the card's private keys, so it is read only when it is a regular file of
/// ours that no one else may open.
///
/// One card per state file: a card keeps its whole state in memory and
/// writes it back after each change, and two cards sharing a file would be
/// one card with two PIN counters — there is no sound merge of the two. So
/// the first read or write takes an flock on `<path>.lock`, held while any
/// copy of this value lives, and a second `passkey-vcard` on the same file
/// is refused with an error that says so.
public struct CardStateFile: Sendable {
    public let path: String
    private let claim = Claim()

    /// Far more than any card state (keys, counters and a few certificates).
    static let maximumBytes = 16 * 1024 * 1024

    public init(path: String) { self.path = path }

    /// The file's contents, or nil when it does not exist yet.
    public func read() throws(VirtualCardError) -> [UInt8]? {
        try claimFile()
        do {
            return try SecureFile.readPrivate(path, limit: Self.maximumBytes)
        } catch .tooLarge {
            throw .stateFile(path: path, reason: "larger than 16 MiB, not a card state file")
        } catch {
            throw .stateFile(path: path, reason: error.reason(about: path))
        }
    }

    /// Replaces the file's contents atomically, creating the directory (0700) if needed.
    public func write(_ contents: [UInt8]) throws(VirtualCardError) {
        try claimFile()
        do { try SecureFile.write(contents, to: path) } catch {
            throw .stateFile(path: path, reason: error.reason(about: path))
        }
    }

    /// Takes the file's lock once; temporary files a crashed card left go then.
    private func claimFile() throws(VirtualCardError) {
        try claim.lock.withLock { (held) throws(VirtualCardError) in
            guard held == nil else { return }
            let lockPath = path + ".lock"
            let acquired: FileLock?
            do throws(SecureFileError) {
                try SecureDirectory.create(SecureDirectory.parent(of: path))
                acquired = try FileLock.acquire(lockPath)
            } catch {
                throw .stateFile(path: path, reason: error.reason(about: lockPath))
            }
            guard let acquired else {
                throw .stateFile(path: path, reason: "another passkey-vcard is using it (it holds \(lockPath))")
            }
            SecureFile.removeStaleTemporaryFiles(in: SecureDirectory.parent(of: path), target: SecureDirectory.name(of: path))
            held = acquired
        }
    }

    /// The lock, shared by every copy of the value; released when the last copy goes.
    private final class Claim: Sendable {
        let lock = Locked<FileLock?>(nil)
    }
}
