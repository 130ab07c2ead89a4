import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Temporary directories (mode 0700) made with mkdtemp, in `$TMPDIR` or /tmp.
public enum TemporaryDirectory {
    /// A new directory `<parent>/<prefix>.XXXXXX`; the caller removes it.
    public static func make(prefix: String, in parent: String? = nil) throws(HarnessError) -> String {
        let base = parent ?? (ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let pointer = buffer.baseAddress else { return false }
            return mkdtemp(pointer) != nil
        }
        guard made else { throw .system("mkdtemp in \(base)") }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Makes `path` (0700) if it is not there yet, and returns it.
    @discardableResult
    public static func directory(_ path: String) throws(HarnessError) -> String {
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw .system("mkdir \(path)") }
        return path
    }

    /// Removes `path` and everything in it.
    public static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
