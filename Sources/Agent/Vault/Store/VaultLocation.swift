import FoundationEssentials
import Hexadecimal
import SecureFiles

#if canImport(Glibc)
import Glibc
#endif

/// Where a vault lives: `$XDG_DATA_HOME/passkey-agent/vault/` (0700), with
/// the header in `header` and one file per entry in `entries/`, each named
/// by the hex of its entry id. Every file is 0600 and written atomically
/// (SecureFiles: temporary file, fsync, rename, fsync of the directory).
public struct VaultLocation: Sendable, Equatable {
    public let directory: String

    /// The vault under passkey-agent's data directory.
    public init(dataDirectory: String) { directory = dataDirectory + "/vault" }

    public init(directory: String) { self.directory = directory }

    public var headerPath: String { directory + "/header" }
    public var entriesDirectory: String { directory + "/entries" }

    func entryPath(id: [UInt8]) -> String { entriesDirectory + "/" + Hexadecimal.encode(id) }

    /// Whether a vault has been created here.
    public var exists: Bool {
        var info = stat()
        return stat(headerPath, &info) == 0
    }

    public func readHeader() throws(VaultError) -> VaultHeader {
        let bytes: [UInt8]?
        do {
            bytes = try SecureFile.read(headerPath, limit: VaultFormat.maxHeaderBytes)
        } catch {
            throw Self.vaultError(error)
        }
        guard let bytes else { throw .notInitialized(path: directory) }
        return try VaultHeader(decoding: bytes, path: headerPath)
    }

    /// Writes the header of a new vault; refuses (and writes nothing) if one exists.
    func createHeader(_ header: VaultHeader) throws(VaultError) {
        do {
            try SecureDirectory.create(entriesDirectory)
            guard try SecureFile.create(header.encoded(), at: headerPath) else { throw VaultError.alreadyExists(path: directory) }
        } catch let error as VaultError {
            throw error
        } catch let error as SecureFileError {
            throw Self.vaultError(error)
        } catch {
            throw .notWritable(path: headerPath, reason: "\(error)")
        }
    }

    /// The lock every header rewrite holds: the agent and `passkey --no-agent
    /// vault …` may both add or remove slots, and a rewrite made from a header
    /// read before the other's rewrite would drop the other's slot.
    var headerLockPath: String { directory + "/header.lock" }

    /// Reads the header, applies `change`, and writes the result — all under
    /// the header lock, so the change applies to the header as it is now
    /// (two writers' slot changes both stay). Returns the header written.
    @discardableResult
    func updateHeader(_ change: (inout VaultHeader) throws(VaultError) -> Void) throws(VaultError) -> VaultHeader {
        let lock: FileLock
        do {
            lock = try FileLock.open(headerLockPath)
            try lock.lock()
        } catch {
            throw Self.vaultError(error)
        }
        defer { lock.release() }
        var header = try readHeader()
        try change(&header)
        do {
            try lock.advanceGeneration()
            try SecureFile.write(header.encoded(), to: headerPath)
        } catch {
            throw Self.vaultError(error)
        }
        return header
    }

    /// The entry ids of every entry file (names that are not 64 hex digits are not entries).
    func entryIds() throws(VaultError) -> [[UInt8]] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: entriesDirectory)
        } catch {
            if !exists { throw .notInitialized(path: directory) }
            // A vault whose entries directory is missing simply holds nothing yet.
            var info = stat()
            if stat(entriesDirectory, &info) != 0 && errno == ENOENT { return [] }
            throw .unreadable(path: entriesDirectory, reason: "\(error)")
        }
        return names.compactMap { Hexadecimal.decodeExactly($0) }.filter { $0.count == VaultFormat.entryIdLength }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// How many entries the vault holds (counting files: no key needed).
    public func entryCount() throws(VaultError) -> Int {
        try entryIds().count
    }

    /// Removes the temporary files killed writers left behind, in the vault
    /// directory (header) and in `entries/`. A writer in another process
    /// holds its temporary file's lock, so its file is never touched (see
    /// SecureFiles' TemporaryName).
    func removeStaleTemporaryFiles() {
        SecureFile.removeStaleTemporaryFiles(in: directory)
        SecureFile.removeStaleTemporaryFiles(in: entriesDirectory)
    }

    static func vaultError(_ error: SecureFileError) -> VaultError {
        switch error {
        case .unreadable(let path, let reason): return .unreadable(path: path, reason: reason)
        case .tooLarge(let path, let limit): return .unreadable(path: path, reason: "larger than \(limit) bytes")
        case .notWritable(let path, let reason): return .notWritable(path: path, reason: reason)
        default: return .unsafeFile(error.description)
        }
    }
}
