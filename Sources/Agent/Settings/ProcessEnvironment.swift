#if canImport(Glibc)
import Glibc
#endif

/// The process environment as a dictionary, read from `environ` without Foundation.
public enum ProcessEnvironment {
    public static func snapshot() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// Read once, at first use.
    public static let current: [String: String] = snapshot()
}

/// Writes to file descriptor 2 without touching C's `stderr` global
/// (which Swift 6 flags as shared mutable state).
public enum StandardError {
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}
