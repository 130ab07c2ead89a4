import AgentProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The demo's own scratch files: a temporary directory (its XDG
/// directories, program output, config), written 0600 and read whole.
enum DemoFiles {
    static func write(_ text: String, to path: String, mode: mode_t = 0o600) throws(AgentError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw AgentError(.internal, "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw AgentError(.internal, "cannot write \(path)") }
            written += count
        }
        fchmod(fd, mode)
    }

    /// The file's text, or "" when it cannot be read.
    static func read(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func directory(_ path: String) throws(AgentError) {
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw AgentError(.internal, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// A program built next to this one (`passkey`, `passkey-agent`, `passkey-vcard`).
    static func sibling(_ name: String) throws(AgentError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { throw AgentError(.internal, "cannot tell where passkey-demo is installed") }
        let own = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let path = String(own[..<(own.lastIndex(of: "/") ?? own.startIndex)]) + "/" + name
        guard access(path, X_OK) == 0 else {
            throw AgentError(.internal, "\(name) is not installed next to passkey-demo (\(path)): build it with `swift build --product \(name)`")
        }
        return path
    }

    /// An installed program on PATH or in /usr/sbin and /sbin (pcscd), or nil.
    static func installed(_ name: String, environment: [String: String]) -> String? {
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] where !directory.isEmpty {
            if access(directory + "/" + name, X_OK) == 0 { return directory + "/" + name }
        }
        return nil
    }
}

extension DemoFiles {
    /// Regular files under `directory` (recursively) whose bytes contain `text`.
    static func filesContaining(_ text: String, under directory: String) -> [String] {
        var found: [String] = []
        guard let handle = opendir(directory) else { return found }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let field = UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
            let name = String(cString: field.assumingMemoryBound(to: CChar.self))
            guard name != ".", name != ".." else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                found += filesContaining(text, under: path)
            } else if info.st_mode & S_IFMT == S_IFREG, read(path).contains(text) {
                found.append(path)
            }
        }
        return found
    }
}
