#if canImport(Glibc)
import Glibc
#endif

/// Why a private file could not be read or written. One line, naming the file.
public enum SecureFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case tooLarge(path: String, limit: Int)
    case notWritable(path: String, reason: String)
    /// A file or directory that should be private is not (a link, another
    /// user's, or open to group or others); the reason says what to fix.
    case notPrivate(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "cannot read \(path): \(reason)"
        case .tooLarge(let path, let limit): return "\(path) is larger than \(limit) bytes"
        case .notWritable(let path, let reason): return "cannot write \(path): \(reason)"
        case .notPrivate(let path, let reason): return "\(path) is not private: \(reason)"
        }
    }

    /// The file or directory that failed: the one asked for, or a directory on its way.
    public var path: String {
        switch self {
        case .unreadable(let path, _), .tooLarge(let path, _), .notWritable(let path, _), .notPrivate(let path, _):
            return path
        }
    }

    /// Why, without the path: for callers that name the file in their own words.
    public var reason: String {
        switch self {
        case .unreadable(_, let reason), .notWritable(_, let reason), .notPrivate(_, let reason): return reason
        case .tooLarge(_, let limit): return "larger than \(limit) bytes"
        }
    }

    /// The reason as said about `file`: when the failure was elsewhere (a
    /// directory that could not be created), that path leads.
    public func reason(about file: String) -> String {
        path == file ? reason : "\(path): \(reason)"
    }

    static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
