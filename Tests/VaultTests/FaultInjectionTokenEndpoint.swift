import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback OAuth token endpoint that rotates the refresh token on every
/// grant, with the reuse grace that Okta ("refresh token reuse interval")
/// and Auth0 ("reuse interval") give: the refresh token just replaced is
/// still taken, once more, in place of its successor.
///
/// Why the grace belongs in the model: the endpoint rotates the token the
/// moment it answers, and a client killed between that answer and its own
/// fsync can only ever hold the previous token. No client can close that
/// window; a server without the grace would make every such crash a forced
/// sign-in. What the client *can* promise — and what the fault injection
/// checks — is that it never holds anything older, and never goes back
/// behind a rotation it acknowledged (the grace cannot tell that apart from
/// a lost answer, so the fault injection checks it against its own record
/// of acknowledged rotations).
final class RotatingTokenEndpoint: @unchecked Sendable {
    /// One refresh_token grant as the endpoint saw it.
    struct Grant {
        /// N of the `RT-N` presented (nil when it was not of that form).
        let presented: Int?
        /// The newest refresh token issued when the grant arrived.
        let newest: Int
        /// Whether it was taken only thanks to the reuse grace.
        let byGrace: Bool
        let accepted: Bool
    }

    private let lock = NSLock()
    private var issued = 1
    private var grants: [Grant] = []
    private var listener: Int32 = -1
    private(set) var port = 0

    var url: String { "http://127.0.0.1:\(port)/token" }

    init() throws {
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
            defer { listener = -1 }
            return listener
        }
        if fd >= 0 {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
        }
    }

    /// N of the newest refresh token issued, `RT-N`.
    var newest: Int { locked { issued } }

    /// Every grant so far, oldest first.
    var received: [Grant] { locked { grants } }

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
            if headerEnd == nil, let end = TokenEndpoint.find([13, 10, 13, 10], in: data) {
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
        let fields = TokenEndpoint.form(String(decoding: data[start..<(start + contentLength)], as: UTF8.self))
        let (status, body) = answer(fields)
        let bytes = Array(("HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body).utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Access tokens are issued already expired (`expires_in` 0), so every
    /// `token.get` with a `minValid` refreshes: each one is a rotation.
    private func answer(_ fields: [String: String]) -> (String, String) {
        locked {
            let presented = fields["refresh_token"].flatMap { $0.hasPrefix("RT-") ? Int($0.dropFirst(3)) : nil }
            let current = presented == issued
            let grace = presented == issued - 1
            let accepted = fields["grant_type"] == "refresh_token" && fields["client_id"] == "cli" && (current || grace)
            grants.append(Grant(presented: presented, newest: issued, byGrace: accepted && grace, accepted: accepted))
            guard accepted else {
                return ("400 Bad Request", #"{"error":"invalid_grant","error_description":"the refresh token is not valid"}"#)
            }
            issued += 1
            return ("200 OK", #"{"access_token":"AT-\#(issued)","token_type":"Bearer","expires_in":0,"refresh_token":"RT-\#(issued)"}"#)
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
