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
