import Locking

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on 127.0.0.1 (an ephemeral port) for any method: each
/// connection carries one request (head and a Content-Length body, at most
/// 256 KiB in all), which the `answer` closure answers with a status, headers
/// and a body, then `Connection: close`. The OpenID tests build whole
/// providers on it (discovery, JWKS, token, device and revocation
/// endpoints); `LoopbackFormServer` is its form-POST-only face.
///
/// Plain POSIX sockets, each connection on a thread of its own.
public final class LoopbackHTTPServer: Sendable {
    public struct Request: Sendable {
        public var method: String
        /// The request target as sent: path and query (`/authorize?x=1`).
        public var target: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public var path: Substring { target.prefix { $0 != "?" } }

        /// The first header of that name (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as form fields (percent-decoded, `+` a space).
        public var form: [String: String] { LoopbackHTTPServer.formFields(String(decoding: body, as: UTF8.self)) }

        /// The query as fields.
        public var query: [String: String] {
            guard let mark = target.firstIndex(of: "?") else { return [:] }
            return LoopbackHTTPServer.formFields(String(target[target.index(after: mark)...]))
        }
    }

    public struct Answer: Sendable {
        public var status: String
        public var headers: [(String, String)]
        public var body: String

        public init(status: String = "200 OK", headers: [(String, String)] = [], body: String) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// A JSON body with `Content-Type: application/json`.
        public static func json(_ body: String, status: String = "200 OK", headers: [(String, String)] = []) -> Answer {
            Answer(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
        }
    }

    public let port: UInt16
    private let listener: Int32
    private let acceptLoop = Locked<BackgroundThread?>(nil)

    /// Listens at once; `answer` gets each request.
    public init(answer: @escaping @Sendable (Request) -> Answer) throws(HarnessError) {
        let (fd, port) = try LoopbackTCP.listen(backlog: 64)
        listener = fd
        self.port = port
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

    /// `a=b&c=d` as fields, percent-decoded (`+` a space): a query or a form body.

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting and waits for the accept loop to end.
    public func stop() {
        guard let thread = acceptLoop.withLock({ (loop) -> BackgroundThread? in
            defer { loop = nil }
            return loop
        }) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        thread.join()
        close(listener)
    }

    private static func serve(_ connection: Int32, _ answer: (Request) -> Answer) {
        defer { close(connection) }
        guard let request = read(connection) else { return }
        let reply = answer(request)
        var head = "HTTP/1.1 \(reply.status)\r\n"
        for (name, value) in reply.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(reply.body.utf8.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array((head + reply.body).utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(connection, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// One request: the head, then Content-Length bytes of body.
    private static func read(_ connection: Int32) -> Request? {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var parsed: (request: Request, bodyStart: Int, length: Int)?
        while received.count < 256 << 10 {
            if parsed == nil, let end = headEnd(received) { parsed = parseHead(received[..<end], bodyStart: end) }
            if let parsed, received.count >= parsed.bodyStart + parsed.length { break }
            let n = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            received += chunk[0..<n]
        }
        guard let (head, bodyStart, length) = parsed, received.count >= bodyStart + length else { return nil }
        var request = head
        request.body = Array(received[bodyStart..<(bodyStart + length)])
        return request
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>, bodyStart: Int) -> (Request, Int, Int)? {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n")
        guard let first = lines.first else { return nil }
        let parts = first.split(separator: " ")
        guard parts.count == 3 else { return nil }
        var headers: [(name: String, value: String)] = []
        var length = 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...].drop { $0 == " " })
            headers.append((name, value))
            if name.lowercased() == "content-length" { length = max(0, Int(value) ?? 0) }
        }
        return (Request(method: String(parts[0]), target: String(parts[1]), headers: headers, body: []), bodyStart, length)
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// `a=b&c=d`, percent-decoded (`+` is a space).
    public static func formFields(_ text: String) -> [String: String] {
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
