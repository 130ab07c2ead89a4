import FoundationEssentials
import Settings

#if canImport(Glibc)
import Glibc
#endif

/// A private temporary directory (0700) for one daemon's sockets, XDG
/// directories and log; removed with everything in it when the run ends.
final class ScratchDirectory {
    let path: String

    init(prefix: String) throws(BenchError) {
        let base = ProcessEnvironment.current["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .stepFailed("making a temporary directory in \(base)", reason: String(cString: strerror(errno)))
        }
        path = String(cString: made)
    }

    /// Makes `name` inside (0700) and returns its path.
    func directory(_ name: String) throws(BenchError) -> String {
        let full = path + "/" + name
        guard mkdir(full, 0o700) == 0 || errno == EEXIST else {
            throw .stepFailed("making \(full)", reason: String(cString: strerror(errno)))
        }
        return full
    }

    /// Writes `text` to a new file `name` inside (0600) and returns its path:
    /// configuration for a daemon (pcscd's reader.conf).
    func write(_ name: String, _ text: String) throws(BenchError) -> String {
        let full = path + "/" + name
        let fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .stepFailed("creating \(full)", reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .stepFailed("writing \(full)", reason: String(cString: strerror(errno))) }
            bytes = bytes.dropFirst(n)
        }
        return full
    }

    /// The last lines of a log file inside, for error messages.
    func readText(_ name: String) -> String {
        FileManager.default.contents(atPath: path + "/" + name).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
