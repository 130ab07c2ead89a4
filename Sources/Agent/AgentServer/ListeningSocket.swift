#if canImport(Glibc)
import Glibc
#endif

/// Why the agent cannot listen.
public enum ListenError: Error, Sendable, Equatable, CustomStringConvertible {
    case noRuntimeDirectory
    case alreadyRunning(String)
    case notASocket(String)
    case unsafeDirectory(String, reason: String)
    case system(String, call: String, errno: Int32)

    public var description: String {
        switch self {
        case .noRuntimeDirectory:
            return "XDG_RUNTIME_DIR is not set (or not an absolute path), so there is no place for the socket; set XDG_RUNTIME_DIR (usually /run/user/$(id -u)) or PASSKEY_AGENT_SOCK, or pass --socket PATH"
        case .alreadyRunning(let path):
            return "another passkey-agent is already listening on \(path); stop it first, or use --socket for a second one"
        case .notASocket(let path):
            return "\(path) exists and is not a socket; remove it or choose another path with --socket"
        case .unsafeDirectory(let path, let reason):
            return "refusing to put the socket in \(path): \(reason)"
        case .system(let path, let call, let code):
            return "\(call) on \(path) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// The agent's listening socket when it creates its own (not socket-activated):
/// directory 0700, socket born 0600 (the process umask untouched), a stale socket from a
/// dead agent replaced, a live one never taken over.
public struct ListeningSocket: Sendable {
    public let path: String
    public let descriptor: Int32
    /// False for a socket systemd passed in: the agent must not unlink it.
    public let ownsPath: Bool

    public static func create(at path: String, backlog: Int32) throws(ListenError) -> ListeningSocket {
        try prepareDirectory(String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]))
        try clearStaleSocket(at: path)
        var address = try socketAddress(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(path, call: "socket", errno: errno) }
        // The socket is born 0600, never briefly wider: Linux gives the file
        // bind creates the socket's own mode (less the umask), so it is set
        // on the descriptor first. Not by setting the umask to 0177 around
        // bind, as before: the umask is the process's, and a directory another
        // thread made meanwhile (a forward opened while a token was stored)
        // was born 0600, unusable, for good.
        guard fchmod(fd, 0o600) == 0 else {
            let code = errno
            close(fd)
            throw .system(path, call: "fchmod", errno: code)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let bindErrno = errno
        guard bound == 0 else {
            close(fd)
            if bindErrno == EADDRINUSE { throw .alreadyRunning(path) }
            throw .system(path, call: "bind", errno: bindErrno)
        }
        guard listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            unlink(path)
            throw .system(path, call: "listen", errno: code)
        }
        return ListeningSocket(path: path, descriptor: fd, ownsPath: true)
    }

    /// A socket systemd passed (fd 3).
    public static func activated(descriptor: Int32, path: String) -> ListeningSocket {
        ListeningSocket(path: path, descriptor: descriptor, ownsPath: false)
    }

    /// Removes the socket file, if it is ours to remove.
    public func removeFile() {
        if ownsPath { unlink(path) }
    }

    /// Creates the socket's directory 0700 when it is missing. An existing one
    /// is used as it is (never chmod-ed: it may be shared, like /tmp) when no
    /// one but us and root can replace what is in it, the rule OpenSSH applies
    /// to the paths it trusts (`safe_path`), plus the sticky-bit case:
    /// - a real directory, not a symbolic link (checked with lstat);
    /// - owned by us or by root;
    /// - not writable by group or others, unless sticky (then others cannot
    ///   rename or unlink our socket).
    static func prepareDirectory(_ directory: String) throws(ListenError) {
        guard !directory.isEmpty else { return }
        var info = stat()
        if lstat(directory, &info) != 0 {
            guard errno == ENOENT else { throw .system(directory, call: "lstat", errno: errno) }
            // Created here, so 0700 (or less, by umask) from the start.
            guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
                throw .system(directory, call: "mkdir", errno: errno)
            }
            guard lstat(directory, &info) == 0 else { throw .system(directory, call: "lstat", errno: errno) }
        }
        let type = info.st_mode & S_IFMT
        guard type != S_IFLNK else {
            throw .unsafeDirectory(directory, reason: "it is a symbolic link; name the real directory")
        }
        guard type == S_IFDIR else { throw .unsafeDirectory(directory, reason: "it is not a directory") }
        guard info.st_uid == getuid() || info.st_uid == 0 else {
            throw .unsafeDirectory(directory, reason: "it belongs to uid \(info.st_uid), not to you or root")
        }
        guard info.st_mode & 0o022 == 0 || info.st_mode & S_ISVTX != 0 else {
            throw .unsafeDirectory(directory, reason: "others may write to it (mode \(String(info.st_mode & 0o7777, radix: 8))) and it is not sticky, so they could replace the socket; use chmod go-w or another directory")
        }
    }

    /// A socket file nobody listens on is left by a dead agent: remove it.
    /// One with a live agent behind it is never touched.
    static func clearStaleSocket(at path: String) throws(ListenError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw .system(path, call: "socket", errno: errno) }
        defer { close(probe) }
        var address = try socketAddress(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected == 0 { throw .alreadyRunning(path) }
        guard errno == ECONNREFUSED else { throw .system(path, call: "connect", errno: errno) }
        guard unlink(path) == 0 || errno == ENOENT else { throw .system(path, call: "unlink", errno: errno) }
    }

    static func socketAddress(_ path: String) throws(ListenError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw .system(path, call: "bind", errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        return address
    }
}
