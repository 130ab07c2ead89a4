#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A deliberately small HTTP/1.1 client over a TCP socket to 127.0.0.1: one
/// request per connection (`Connection: close`), a `Content-Length` body.
/// Sockets block, so each request runs on a thread of its own: neither the
/// Swift concurrency pool nor Dispatch's global queues (which share that
/// pool's few threads on Linux) may be blocked, or the in-process server starves.
package struct LoopbackHTTPClient: Sendable {
    package let host: String
    package let port: UInt16

    package struct Reply: Sendable, CustomStringConvertible {
        package var status: Int
        /// Header names lowercased.
        package var headers: [String: String]
        package var body: [UInt8]

        package var text: String { String(decoding: body, as: UTF8.self) }
        package var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }
        package var description: String { "HTTP \(status) \(text)" }
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// `apiURL` as the devserver reports it: `http://127.0.0.1:<port>`.
    package init(apiURL: String) throws {
        guard apiURL.hasPrefix("http://"), let colon = apiURL.lastIndex(of: ":"),
              let port = UInt16(apiURL[apiURL.index(after: colon)...]) else {
            throw Failure(description: "not an http://host:port URL: \(apiURL)")
        }
        self.host = String(apiURL[apiURL.index(apiURL.startIndex, offsetBy: 7)..<colon])
        self.port = port
    }

    package func send(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil) async throws -> Reply {
        try await onOwnThread { try self.sendBlocking(method, path, headers: headers, body: body) }
    }

    package func send(_ method: String, _ path: String, headers: [String: String] = [:], json: Any) async throws -> Reply {
        let data = try JSONSerialization.data(withJSONObject: json)
        var headers = headers
        headers["Content-Type"] = "application/json"
        return try await send(method, path, headers: headers, body: Array(data))
    }

    private func sendBlocking(_ method: String, _ path: String, headers: [String: String], body: [UInt8]?) throws -> Reply {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw Failure(description: "bad IPv4 address \(host)") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect \(host):\(port): \(String(cString: strerror(errno)))") }
        // A stuck server fails the test instead of hanging it.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        // The Host a browser sends for this address, unless the test names another.
        let hostHeader = headers.keys.contains { $0.lowercased() == "host" } ? "" : "Host: \(host):\(port)\r\n"
        var head = "\(method) \(path) HTTP/1.1\r\n\(hostHeader)Connection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body?.count ?? 0)\r\n\r\n"
        let request = Array(head.utf8) + (body ?? [])
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(description: "write: \(String(cString: strerror(errno)))") }
            sent += count
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            response += buffer[0..<count]
        }
        return try Self.parse(response)
    }

    package static func parse(_ response: [UInt8]) throws -> Reply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0...(max(0, response.count - 4))).first(where: { Array(response[$0..<min($0 + 4, response.count)]) == separator }) else {
            throw Failure(description: "no header end in \(response.count) bytes")
        }
        let lines = String(decoding: response[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(response[(end + 4)...])
        if let length = headers["content-length"].flatMap(Int.init), length <= body.count {
            body = Array(body[0..<length])
        }
        return Reply(status: status, headers: headers, body: body)
    }
}

/// Runs blocking work on a new thread and awaits its result.
package func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
