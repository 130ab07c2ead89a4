import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw client for the agent's socket: writes bytes, reads newline-framed
/// lines with a timeout. Tests use it to send exactly what they mean,
/// malformed input included.
public final class LineClient: @unchecked Sendable {
    public let fd: Int32
    private var buffer: [UInt8] = []

    public init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        let result = UnixSocketAddress.with(path) { connect(fd, $0, $1) }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw HarnessError("connect \(path): \(message)")
        }
    }

    deinit { close(fd) }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw HarnessError("send: \(String(cString: strerror(errno)))") }
            offset += n
        }
    }

    /// The next line, or nil when the peer closed the connection; throws after `timeout`.
    public func readLine(timeout: TimeInterval = 10) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw HarnessError("no line within \(timeout) s") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(remaining * 1000))
            if ready == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }

    /// The next line decoded as a JSON object.
    public func readJSON(timeout: TimeInterval = 10) throws -> [String: Any] {
        guard let line = try readLine(timeout: timeout) else { throw HarnessError("the agent closed the connection") }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw HarnessError("not a JSON object: \(line)")
        }
        return object
    }

    /// Sends a request and returns its response, skipping notifications.
    public func call(_ id: Int, _ method: String, params: String = "{}", timeout: TimeInterval = 10) throws -> [String: Any] {
        try send("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"\(method)\",\"params\":\(params)}\n")
        while true {
            let message = try readJSON(timeout: timeout)
            if message["method"] != nil { continue }
            return message
        }
    }
}

extension Dictionary where Key == String, Value == Any {
    /// `error.data.kind` of a response, if it is an error.
    public var errorKind: String? { ((self["error"] as? [String: Any])?["data"] as? [String: Any])?["kind"] as? String }
    public var errorCode: Int? { (self["error"] as? [String: Any])?["code"] as? Int }
    public var result: [String: Any]? { self["result"] as? [String: Any] }
}
