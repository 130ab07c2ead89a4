import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An OAuth 2.0 token endpoint on loopback, for timing one `token.get` that
/// refreshes. It answers the refresh_token grant the way a strict server
/// does: each refresh token is good once, every answer rotates it, and the
/// access tokens it issues live `expiresIn` seconds.
///
/// Plain POSIX sockets, one connection at a time on a Dispatch queue of its
/// own (the agent's refreshes of one account are one at a time anyway);
/// every answer says `Connection: close`, so each refresh connects anew, as
/// one every few minutes to a real identity server would.
final class LoopbackTokenEndpoint: Sendable {
    private struct State {
        var refreshToken: String
        var issued = 0
        var refused = 0
    }

    let port: UInt16
    private let listener: Int32
    private let expiresIn: Int
    private let state: Mutex<State>
    private let running = DispatchGroup()

    var url: String { "http://127.0.0.1:\(port)/token" }
    /// Refreshes answered with new tokens.
    var issued: Int { state.withLock { $0.issued } }
    /// Requests refused with `invalid_grant` (a stale refresh token, another grant type).
    /// A request that never arrives whole gets no answer and is not counted.
    var refused: Int { state.withLock { $0.refused } }

    init(firstRefreshToken: String, expiresIn: Int) throws(BenchError) {
        self.expiresIn = expiresIn
        state = Mutex(State(refreshToken: firstRefreshToken))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .stepFailed("socket()", reason: String(cString: strerror(errno))) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard listening else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .stepFailed("listening on loopback for the token endpoint", reason: reason)
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        running.enter()
        DispatchQueue(label: "passkey-bench.token-endpoint").async { [self] in
            acceptLoop()
            running.leave()
        }
    }

    /// Stops accepting and waits for the loop to end.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        running.wait()
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return  // shut down
            }
            serve(connection)
            close(connection)
        }
    }

    /// One request: the head, a Content-Length body, one answer.
    private func serve(_ connection: Int32) {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var bodyStart: Int?
        var contentLength = 0
        while received.count < 64 << 10 {
            if bodyStart == nil, let end = Self.headEnd(received) {
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
        guard let bodyStart, received.count >= bodyStart + contentLength else { return }
        let fields = Self.formFields(String(decoding: received[bodyStart..<(bodyStart + contentLength)], as: UTF8.self))
        let (status, body) = answer(fields)
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

    private func answer(_ fields: [String: String]) -> (status: String, body: String) {
        state.withLock { state in
            guard fields["grant_type"] == "refresh_token", let presented = fields["refresh_token"],
                  presented == state.refreshToken else {
                state.refused += 1
                return ("400 Bad Request", #"{"error":"invalid_grant","error_description":"the refresh token is not valid"}"#)
            }
            state.issued += 1
            state.refreshToken = "RT-bench-\(state.issued + 1)"
            return ("200 OK", #"{"access_token":"AT-bench-\#(state.issued + 1)","token_type":"Bearer","expires_in":\#(expiresIn),"#
                + #""refresh_token":"\#(state.refreshToken)"}"#)
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
    private static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            fields[percentDecoded(parts[0])] = percentDecoded(parts[1])
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
