#if canImport(Glibc)
import Glibc
#endif

/// A harness failure: what is missing or what failed, and how to get past it.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// `what` failed with the current `errno`'s message.
    static func system(_ what: String) -> HarnessError {
        HarnessError("\(what): \(String(cString: strerror(errno)))")
    }
}
