#if canImport(Glibc)
import Glibc
#endif

/// One line on stderr (the C `stderr` global is not concurrency-safe in Swift 6).
func printToStandardError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
