import FoundationEssentials

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

    /// The last lines of a log file inside, for error messages.
    func readText(_ name: String) -> String {
        FileManager.default.contents(atPath: path + "/" + name).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
