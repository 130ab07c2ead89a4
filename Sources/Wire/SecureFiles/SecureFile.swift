#if canImport(Glibc)
import Glibc
#endif

/// Files that hold secrets: 0600, in directories created 0700, replaced
/// atomically — a temporary file in the same directory, fsync, rename(2),
/// fsync of the directory — so a crash at any instant leaves the old
/// content or the new, never a torn file.
public enum SecureFile {
    /// The file's bytes, or nil when it does not exist. It must be ours
    /// (`FileTrust.ownedByUs`: a regular file, not a link, owned by this user,
    /// changeable by no one else); larger than `limit` is an error.
    public static func read(_ path: String, limit: Int) throws(SecureFileError) -> [UInt8]? {
        try read(path, limit: limit, trust: .ownedByUs)
    }

    /// As `read`, for a secret that must have stayed private: a file group or
    /// others may open is refused as well (`.notPrivate`, saying which chmod
    /// fixes it) rather than used.
    public static func readPrivate(_ path: String, limit: Int) throws(SecureFileError) -> [UInt8]? {
        try read(path, limit: limit, trust: .privateToUs)
    }

    /// Every read of a file in our directories goes through `TrustedOpen`.
    public static func read(_ path: String, limit: Int, trust: FileTrust) throws(SecureFileError) -> [UInt8]? {
        try readIdentified(path, limit: limit, trust: trust)?.bytes
    }

    /// As `read`, with the identity of the file the bytes came from, taken
    /// from the open descriptor before reading: if the path is replaced
    /// meanwhile, the identity is the old file's, so a later comparison
    /// with `FileIdentity.current(of:)` sees the change.
    public static func readIdentified(_ path: String, limit: Int,
                                      trust: FileTrust = .ownedByUs) throws(SecureFileError) -> (bytes: [UInt8], identity: FileIdentity)? {
        guard let descriptor = try TrustedOpen.forReading(path, trust: trust, limit: limit) else { return nil }
        defer { close(descriptor) }
        guard let identity = FileIdentity.of(descriptor: descriptor) else {
            throw .unreadable(path: path, reason: SecureFileError.text(errno))
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: SecureFileError.text(errno))
            }
            if count == 0 { return (bytes, identity) }
            bytes += chunk[0..<count]
            if bytes.count > limit { throw .tooLarge(path: path, limit: limit) }
        }
    }

    /// Replaces (or creates) `path` with `bytes`, atomically.
    public static func write(_ bytes: [UInt8], to path: String) throws(SecureFileError) {
        _ = try write(bytes, to: path, replacing: true)
    }

    /// Creates `path` with `bytes` unless it exists; false (and nothing
    /// written) when another writer got there first. link(2), unlike
    /// rename(2), refuses to replace a file.
    public static func create(_ bytes: [UInt8], at path: String) throws(SecureFileError) -> Bool {
        try write(bytes, to: path, replacing: false)
    }

    /// Removes `path` and syncs its directory; a missing file is fine.
    public static func remove(_ path: String) throws(SecureFileError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .notWritable(path: path, reason: SecureFileError.text(errno))
        }
        try syncDirectory(of: path)
    }

    private static func write(_ bytes: [UInt8], to path: String, replacing: Bool) throws(SecureFileError) -> Bool {
        let directory = SecureDirectory.parent(of: path)
        try SecureDirectory.create(directory)
        let temporary = directory + "/" + TemporaryName.make(for: SecureDirectory.name(of: path))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .notWritable(path: path, reason: SecureFileError.text(errno)) }
        // Held until the file is closed: it tells `removeStaleTemporaryFiles`
        // in any process that this writer is alive (see TemporaryName).
        flock(descriptor, LOCK_EX)
        defer { close(descriptor) }  // last: the lock outlives the temporary name
        defer { unlink(temporary) }  // after rename or link, only the temporary name goes
        let failure = fill(descriptor, with: bytes)
        if let failure { throw .notWritable(path: path, reason: SecureFileError.text(failure)) }
        if replacing {
            guard rename(temporary, path) == 0 else { throw .notWritable(path: path, reason: SecureFileError.text(errno)) }
        } else if link(temporary, path) != 0 {
            if errno == EEXIST { return false }
            throw .notWritable(path: path, reason: SecureFileError.text(errno))
        }
        try syncDirectory(of: path)
        return true
    }

    /// Makes the file exactly 0600 (open's mode passes through the umask),
    /// writes everything and syncs it; returns errno on failure.
    private static func fill(_ descriptor: Int32, with bytes: [UInt8]) -> Int32? {
        guard fchmod(descriptor, 0o600) == 0 else { return errno }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return fsync(descriptor) == 0 ? nil : errno
    }

    /// Permission bits as chmod takes them: "644".
    static func octal(_ mode: mode_t) -> String { String(mode & 0o777, radix: 8) }

    /// A rename is durable only once its directory is synced.
    static func syncDirectory(of path: String) throws(SecureFileError) {
        let directory = SecureDirectory.parent(of: path)
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .notWritable(path: path, reason: "cannot open its directory to sync it: " + SecureFileError.text(errno))
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw .notWritable(path: path, reason: "cannot sync its directory: " + SecureFileError.text(errno))
        }
    }
}

/// Directories for secret files.
public enum SecureDirectory {
    /// Creates `directory` and missing parents with mode 0700; existing ones are left as they are.
    public static func create(_ directory: String) throws(SecureFileError) {
        var info = stat()
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw .notWritable(path: directory, reason: "it exists and is not a directory")
            }
            return
        }
        let parent = Self.parent(of: directory)
        if parent != directory && !parent.isEmpty { try create(parent) }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw .notWritable(path: directory, reason: SecureFileError.text(errno))
        }
    }

    /// As `create`, for a directory that must have stayed private: an existing
    /// one must belong to this user and be closed to group and others.
    public static func requirePrivate(_ directory: String) throws(SecureFileError) {
        try create(directory)
        var info = stat()
        guard stat(directory, &info) == 0 else { throw .unreadable(path: directory, reason: SecureFileError.text(errno)) }
        guard info.st_uid == getuid() else { throw .notPrivate(path: directory, reason: "owned by another user") }
        guard info.st_mode & 0o077 == 0 else {
            throw .notPrivate(path: directory,
                              reason: "mode \(SecureFile.octal(info.st_mode)) lets other users in; run chmod 700 on it")
        }
    }

    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    public static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
