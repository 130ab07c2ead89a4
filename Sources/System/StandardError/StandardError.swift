#if canImport(Glibc)
import Glibc
#endif

/// Text for standard error, written straight to file descriptor 2: no stdio
/// buffer to flush before `exit`, and no use of C's `stderr` global (which
/// Swift 6 flags as shared mutable state). The one stderr writer; it depends
/// on nothing, so the light `passkey` client uses it as the agent does.
public enum StandardError {
    public static func write(_ text: String) { OutputDescriptor.standardError.write(text) }

    /// The text and a newline, in one write.
    public static func writeLine(_ text: String) { write(text + "\n") }
}

/// A descriptor text is written to whole: the terminal a prompt opened,
/// standard output for a line a reader waits on, standard error.
public struct OutputDescriptor: Sendable {
    public let rawValue: Int32

    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    public static let standardOutput = OutputDescriptor(1)
    public static let standardError = OutputDescriptor(2)

    /// Writes every byte, retrying interrupted and short writes. A failure
    /// ends the write silently: there is nowhere left to report it.
    public func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}
