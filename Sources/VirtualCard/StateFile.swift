import SecureFiles

/// Reads and writes the card's state file: one JSON document, a `SecureFile`
/// (0600 in a directory created 0700, replaced atomically), so a crash at any
/// instant leaves the old state or the new one, never a torn file.
public struct StateFile: Sendable {
    public let path: String

    /// Far more than any card state (keys, counters and a few certificates).
    static let maximumBytes = 16 * 1024 * 1024

    public init(path: String) { self.path = path }

    /// The file's contents, or nil when it does not exist yet.
    public func read() throws(VirtualCardError) -> [UInt8]? {
        do {
            return try SecureFile.read(path, limit: Self.maximumBytes)
        } catch .tooLarge {
            throw .stateFile(path: path, reason: "larger than 16 MiB, not a card state file")
        } catch {
            throw .stateFile(path: path, reason: error.reason(about: path))
        }
    }

    /// Replaces the file's contents atomically, creating the directory (0700) if needed.
    public func write(_ contents: [UInt8]) throws(VirtualCardError) {
        do { try SecureFile.write(contents, to: path) } catch {
            throw .stateFile(path: path, reason: error.reason(about: path))
        }
    }
}
