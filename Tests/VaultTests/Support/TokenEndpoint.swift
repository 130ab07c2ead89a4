import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real OAuth 2.0 token endpoint on loopback, in the test process: it
/// answers the refresh_token grant strictly (a refresh token is good once:
/// each answer rotates it, and the old one then gets `invalid_grant`),
/// records the requests, and can hold them until the test opens its gate.
///
/// Plain POSIX sockets on threads of its own: the tests block their threads
/// while `passkey` runs, so a server that needed Swift's cooperative thread
/// pool could starve.
final class TokenEndpoint: @unchecked Sendable {
    enum Mode { case rotate, invalidGrant }

    private let lock = NSLock()
    private var requests: [[String: String]] = []
    private var currentRefreshToken: String
    private var issued = 1
    private var gateOpen = true
    private var mode = Mode.rotate
    private var stopped = false
    private let expiresIn: Int
    private var listener: Int32 = -1
    private(set) var port = 0

    var url: String { "http://127.0.0.1:\(port)/token" }

    /// `refreshToken`: the one refresh token it accepts first. `expiresIn`:
    /// the lifetime of the access tokens it issues.
    init(refreshToken: String, expiresIn: Int) throws {
        currentRefreshToken = refreshToken
        self.expiresIn = expiresIn
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = listener
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw TestFailure("cannot listen on loopback: \(String(cString: strerror(errno)))") }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { self.acceptLoop() }.start()
    }

    deinit { stop() }

    func stop() {
        let fd = locked { () -> Int32 in
            stopped = true
            defer { listener = -1 }
            return listener
        }
        if fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    /// Requests wait until `openGate()`.
    func closeGate() { locked { gateOpen = false } }
    func openGate() { locked { gateOpen = true } }
    func set(_ newMode: Mode) { locked { mode = newMode } }

    /// The form fields of every request so far.
    var received: [[String: String]] { locked { requests } }

    private func acceptLoop() {
        while true {
            let fd = locked { listener }
            guard fd >= 0 else { return }
            let connection = accept(fd, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread { self.serve(connection) }.start()
        }
    }

    /// One request: headers, a Content-Length body, one answer, close.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            if headerEnd == nil, let end = Self.find([13, 10, 13, 10], in: data) {
                headerEnd = end + 4
                let head = String(decoding: data[..<end], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    contentLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let headerEnd, data.count >= headerEnd + contentLength { break }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            data += chunk[0..<count]
        }
        let start = headerEnd ?? data.count
        let fields = Self.form(String(decoding: data[start..<(start + contentLength)], as: UTF8.self))
        let (status, body) = answer(fields)
        let response = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body
        var bytes = Array(response.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeMutableBytes { send(connection, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    private func answer(_ fields: [String: String]) -> (String, String) {
        locked { requests.append(fields) }
        while !locked({ gateOpen || stopped }) { usleep(20_000) }
        return locked {
            guard fields["grant_type"] == "refresh_token", fields["client_id"] == "cli" else {
                return ("400 Bad Request", #"{"error":"invalid_request","error_description":"grant_type and client_id are required"}"#)
            }
            guard mode == .rotate, fields["refresh_token"] == currentRefreshToken else {
                return ("400 Bad Request", #"{"error":"invalid_grant","error_description":"the refresh token is not valid"}"#)
            }
            issued += 1
            currentRefreshToken = "RT-\(issued)"
            return ("200 OK", #"{"access_token":"AT-\#(issued)","token_type":"Bearer","expires_in":\#(expiresIn),"refresh_token":"RT-\#(issued)"}"#)
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
