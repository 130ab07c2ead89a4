#if canImport(Glibc)
import Glibc
#endif

/// Why a private file could not be read or written. One line, naming the file.
public enum SecureFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case tooLarge(path: String, limit: Int)
    case notWritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .tooLarge(let path, let limit): return "\(path) is larger than \(limit) bytes"
        case .notWritable(let path, let reason): return "cannot write \(path): \(reason)"
        }
    }

    static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
