import AgentProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Reading what a tool writes to its credential helper, bounded, and
/// writing the answer in one piece.
enum CredentialInput {
    /// git's description: lines up to a blank one or the end of input (git
    /// may keep the pipe open after the blank line, so reading to the end could hang).
    static func gitDescription() throws(AgentError) -> [UInt8] {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return bytes }
            if byte == UInt8(ascii: "\n") && (bytes.isEmpty || bytes.last == UInt8(ascii: "\n")) { return bytes }
            bytes.append(byte)
            guard bytes.count <= GitCredentialHelper.maxInput else {
                throw AgentError(.invalidInput, "git's credential description is longer than 1 MiB")
            }
        }
    }

    /// Everything up to the end of input, at most `limit` bytes.
    static func all(limit: Int) throws(AgentError) -> [UInt8] {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return data }
            data.append(contentsOf: chunk[0..<n])
            guard data.count <= limit else { throw AgentError(.invalidInput, "standard input holds more than \(limit) bytes") }
        }
    }

    /// `text` on stdout, unbuffered (the process may end right after).
    static func writeOut(_ text: String) {
        var bytes = Array(text.utf8)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}
