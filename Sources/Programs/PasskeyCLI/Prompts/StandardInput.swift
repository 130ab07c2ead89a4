#if canImport(Glibc)
import Glibc
#endif

/// Secrets for scripts: `--pin-stdin` reads them from standard input, one per
/// line, in the order the command documents. Never from the command line,
/// where `ps` would show them.
enum StandardInput {
    /// Reads one line (without the newline); nil at end of input.
    static func readLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            if byte == UInt8(ascii: "\n") { return finish(&bytes) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : finish(&bytes)
    }

    /// Everything on standard input (for JSON documents piped in).
    static func readAll() -> [UInt8] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return data }
            data.append(contentsOf: chunk[0..<n])
        }
    }

    private static func finish(_ bytes: inout [UInt8]) -> String {
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        let text = String(decoding: bytes, as: UTF8.self)
        for i in bytes.indices { bytes[i] = 0 }
        return text
    }
}
