import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on 127.0.0.1 (an ephemeral port) that reads one
/// form-encoded POST per connection and answers it with JSON and
/// `Connection: close`: the mechanism under the token endpoints the tests and
/// passkey-bench refresh against. What it answers is the `answer` closure's.
///
/// Plain POSIX sockets, each connection on a thread of its own, so an answer
/// that waits (a test holding requests at a gate) holds up nobody else.
public final class LoopbackFormServer: Sendable {
    /// What a request gets: an HTTP status line's code and text, and a JSON body.
    public typealias Answer = (status: String, body: String)

    public let port: UInt16
    private let listener: Int32
    private let acceptLoop = Mutex<BackgroundThread?>(nil)

    /// Listens at once; `answer` gets each request's form fields (percent-decoded).
    public init(answer: @escaping @Sendable (_ form: [String: String]) -> Answer) throws(HarnessError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard listening else {
            let failure = HarnessError.system("cannot listen on loopback")
            close(fd)
            throw failure
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = try BackgroundThread {
            while true {
                let connection = accept(fd, nil, nil)
                if connection < 0 {
                    if errno == EINTR { continue }
                    return  // shut down
                }
                do {
                    try BackgroundThread { Self.serve(connection, answer) }.detach()
                } catch {
                    close(connection)
                }
            }
        }
        acceptLoop.withLock { $0 = thread }
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting and waits for the accept loop to end (requests being answered finish on their own).
    public func stop() {
        guard let thread = acceptLoop.withLock({ (loop) -> BackgroundThread? in
            defer { loop = nil }
            return loop
        }) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        thread.join()
        close(listener)
    }

    /// One request: the head, a Content-Length body (at most 64 KiB in all), one answer, close.
    private static func serve(_ connection: Int32, _ answer: (_ form: [String: String]) -> Answer) {
        defer { close(connection) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var bodyStart: Int?
        var contentLength = 0
        while received.count < 64 << 10 {
            if bodyStart == nil, let end = headEnd(received) {
                bodyStart = end
                let head = String(decoding: received[..<end], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength = Int(line.dropFirst("content-length:".count).filter { $0 != " " }) ?? 0
                }
            }
            if let bodyStart, received.count >= bodyStart + contentLength { break }
            let n = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            received += chunk[0..<n]
        }
        guard let bodyStart, contentLength >= 0, received.count >= bodyStart + contentLength else { return }
        let (status, body) = answer(formFields(String(decoding: received[bodyStart..<(bodyStart + contentLength)], as: UTF8.self)))
        let response = Array(("HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n" + body).utf8)
        var offset = 0
        while offset < response.count {
            let n = response.withUnsafeBytes { send(connection, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// Where the blank line after the head ends, if it has arrived.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// `a=b&c=d`, percent-decoded (`+` is a space).
    static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            fields[percentDecoded(parts[0])] = parts.count > 1 ? percentDecoded(parts[1]) : ""
        }
        return fields
    }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), utf8.count >= 2,
                      let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
