import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one JSON file that holds an authenticator's state.
///
/// It holds private keys, so it is created 0600 in a directory created 0700.
/// Every write is atomic (temporary file in the same directory, fsync, rename,
/// fsync of the directory): a crash at any instant leaves the old or the new
/// state, never a torn one. A file that exists but cannot be read or parsed is
/// an error naming the file; it is never silently replaced.
struct StateFile {
    let path: String

    /// Larger than any state this authenticator writes (100 credentials ≈ 60 KiB).
    static let maximumBytes = 4 << 20

    /// The stored state, or nil if there is no file yet.
    func load() throws(VirtualAuthenticatorError) -> PersistedState? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            if code == ENOENT { return nil }
            throw .stateUnreadable(path: path, reason: Self.describe(errno: code))
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .stateUnreadable(path: path, reason: Self.describe(errno: errno))
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > Self.maximumBytes {
                throw .stateCorrupt(path: path, reason: "larger than \(Self.maximumBytes) bytes")
            }
        }
        if bytes.isEmpty { throw .stateCorrupt(path: path, reason: "the file is empty") }
        let state: PersistedState
        do {
            state = try JSONDecoder().decode(PersistedState.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw .stateCorrupt(path: path, reason: Self.describe(error))
        } catch {
            throw .stateCorrupt(path: path, reason: "not valid JSON")
        }
        return state
    }

    /// Replaces the state file atomically.
    func save(_ state: PersistedState) throws(VirtualAuthenticatorError) {
        _ = try write(state, replacing: true)
    }

    /// Writes the first state file, unless one appeared meanwhile (another
    /// instance got there first): then returns false and leaves it alone, so two
    /// authenticators starting at once cannot end up with different master secrets.
    func create(_ state: PersistedState) throws(VirtualAuthenticatorError) -> Bool {
        try write(state, replacing: false)
    }

    private func write(_ state: PersistedState, replacing: Bool) throws(VirtualAuthenticatorError) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(state) } catch {
            throw .stateNotWritable(path: path, reason: "cannot encode the state")
        }
        let directory = Self.directory(of: path)
        try createDirectory(directory)

        let temporary = directory + "/." + Self.fileName(of: path) + ".tmp-\(getpid())-"
            + secureRandomBytes(6).map { String($0, radix: 16) }.joined()
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .stateNotWritable(path: path, reason: Self.describe(errno: errno))
        }
        defer { unlink(temporary) }  // after rename or link, only the name goes
        let failure = fillAndSync(descriptor, with: data)
        close(descriptor)
        if let failure { throw failure }
        if replacing {
            guard rename(temporary, path) == 0 else {
                throw .stateNotWritable(path: path, reason: Self.describe(errno: errno))
            }
        } else if link(temporary, path) != 0 {
            // link(2), unlike rename(2), refuses to replace an existing file.
            if errno == EEXIST { return false }
            throw .stateNotWritable(path: path, reason: Self.describe(errno: errno))
        }
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else {
            throw .stateNotWritable(path: path, reason: "cannot open its directory to sync it: " + Self.describe(errno: errno))
        }
        defer { close(directoryDescriptor) }
        guard fsync(directoryDescriptor) == 0 else {
            throw .stateNotWritable(path: path, reason: "cannot sync its directory: " + Self.describe(errno: errno))
        }
        return true
    }

    /// Makes the file exactly 0600 (open's mode is filtered by the umask),
    /// writes `data` and syncs it. Returns the failure, if any.
    private func fillAndSync(_ descriptor: Int32, with data: Data) -> VirtualAuthenticatorError? {
        guard fchmod(descriptor, 0o600) == 0 else {
            return .stateNotWritable(path: path, reason: Self.describe(errno: errno))
        }
        let writeFailure: Int32? = data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let writeFailure { return .stateNotWritable(path: path, reason: Self.describe(errno: writeFailure)) }
        guard fsync(descriptor) == 0 else {
            return .stateNotWritable(path: path, reason: Self.describe(errno: errno))
        }
        return nil
    }

    /// Creates `directory` and missing parents with mode 0700 (existing ones are left alone).
    private func createDirectory(_ directory: String) throws(VirtualAuthenticatorError) {
        var isDirectory = stat()
        if stat(directory, &isDirectory) == 0 {
            guard (isDirectory.st_mode & S_IFMT) == S_IFDIR else {
                throw .stateNotWritable(path: path, reason: "\(directory) is not a directory")
            }
            return
        }
        let parent = Self.directory(of: directory)
        if parent != directory { try createDirectory(parent) }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .stateNotWritable(path: path, reason: "cannot create \(directory): " + Self.describe(errno: errno))
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    static func describe(errno code: Int32) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        return String(cString: message)
    }

    /// Names the JSON member that failed, never its value (values are secrets).
    static func describe(_ error: DecodingError) -> String {
        func pathString(_ path: [any CodingKey]) -> String {
            var result = ""
            for key in path {
                if let index = key.intValue { result += "[\(index)]" } else {
                    result += (result.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return result.isEmpty ? "the top level" : result
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = pathString(context.codingPath)
            return "member \(key.stringValue) is missing" + (context.codingPath.isEmpty ? "" : " in \(parent)")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(pathString(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(pathString(context.codingPath)) is not valid"
        @unknown default:
            return "not a valid state document"
        }
    }
}
