#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// Reads and writes the card's state file: one JSON document, mode 0600,
/// replaced atomically (write a temporary file in the same directory, fsync
/// it, rename it over the old one, fsync the directory), so a crash at any
/// instant leaves the old state or the new one, never a torn file.
public struct StateFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The file's contents, or nil when it does not exist yet.
    public func read() throws(VirtualCardError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .stateFile(path: path, reason: Self.errnoText())
        }
        defer { close(fd) }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw .stateFile(path: path, reason: Self.errnoText())
            }
            if n == 0 { break }
            contents += buffer.prefix(n)
            guard contents.count <= 16 * 1024 * 1024 else {
                throw .stateFile(path: path, reason: "larger than 16 MiB, not a card state file")
            }
        }
        return contents
    }

    /// Replaces the file's contents atomically, creating the directory (0700) if needed.
    public func write(_ contents: [UInt8]) throws(VirtualCardError) {
        let directory = Self.directory(of: path)
        try Self.makeDirectory(directory)
        var template = Array((path + ".tmp.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard fd >= 0 else { throw .stateFile(path: path, reason: Self.errnoText()) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        do throws(VirtualCardError) {
            try fill(fd, with: contents)
        } catch {
            close(fd)
            unlink(temporaryPath)
            throw error
        }
        close(fd)
        guard rename(temporaryPath, path) == 0 else {
            let reason = Self.errnoText()
            unlink(temporaryPath)
            throw .stateFile(path: path, reason: reason)
        }
        // The rename is durable only once the directory entry is on disk.
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Restricts the temporary file to its owner, writes everything, and flushes it to disk.
    private func fill(_ fd: Int32, with contents: [UInt8]) throws(VirtualCardError) {
        guard fchmod(fd, 0o600) == 0 else { throw .stateFile(path: path, reason: Self.errnoText()) }
        var offset = 0
        while offset < contents.count {
            let n = contents[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .stateFile(path: path, reason: Self.errnoText())
            }
            offset += n
        }
        guard fsync(fd) == 0 else { throw .stateFile(path: path, reason: Self.errnoText()) }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// Creates `directory` and its missing parents with mode 0700.
    static func makeDirectory(_ directory: String) throws(VirtualCardError) {
        var current = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw .stateFile(path: directory, reason: errnoText())
            }
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
