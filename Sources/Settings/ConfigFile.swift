import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Reads config.toml the way ssh reads ~/.ssh/config: it may be a symlink
/// (dotfile managers make those), but it must end at a regular file that we
/// (or root) own and that nobody else may write — the file names devices,
/// state files and servers, so another user able to change it could
/// redirect them. A FIFO or a device there must not hang the agent.
enum ConfigFile {
    static let maxBytes = 1 << 20

    /// The file's bytes; nil when it does not exist.
    static func contents(of path: String) throws(SettingsError) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .unreadable(path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .unreadable(path, reason: "it is not a regular file") }
        guard info.st_uid == getuid() || info.st_uid == 0 else {
            throw .unreadable(path, reason: "it belongs to uid \(info.st_uid), not to you")
        }
        guard info.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw .unreadable(path, reason: "others may write it; run `chmod go-w \(path)`")
        }
        guard info.st_size <= maxBytes else { throw .unreadable(path, reason: "it is larger than \(maxBytes) bytes") }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .unreadable(path, reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            guard bytes.count <= maxBytes else { throw .unreadable(path, reason: "it is larger than \(maxBytes) bytes") }
        }
        return Data(bytes)
    }
}
