import AgentProtocol
import Foundation
import Harness
import Interaction
import Locking
import NIOCore
import NIOEmbedded

/// Bytes as a NIO buffer, the way a socket read hands them to the pipeline.
func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

func buffer(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

extension EmbeddedChannel {
    /// Every line the pipeline wrote out so far, as text.
    func writtenLines() throws -> [String] {
        var text = ""
        while let written = try readOutbound(as: ByteBuffer.self) { text += String(buffer: written) }
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Every frame passed on to the next handler so far, as text.
    func passedOn() throws -> [String] {
        var frames: [String] = []
        while let frame = try readInbound(as: ByteBuffer.self) { frames.append(String(buffer: frame)) }
        return frames
    }

    /// Active, as an accepted connection is when its pipeline starts.
    func activate() throws {
        try connect(to: SocketAddress(unixDomainSocketPath: "/agent.sock")).wait()
    }
}

/// A JSON-RPC line as a dictionary (TestSupport's `errorKind`, `errorCode` read it).
func json(_ line: String) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw AgentError(.internal, "not a JSON object: \(line)")
    }
    return object
}

/// A request line, as a client writes it.
func request(_ id: Int, _ method: String, _ params: String? = nil) -> String {
    if let params { return #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"# + "\n" }
    return #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)"}"# + "\n"
}

/// `token.get` in the plain form `passkey token get` writes, the one the agent's fast path reads.
func plainTokenGet(_ id: Int, _ account: String) -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"token.get","params":{"account":"\#(account)","minValid":60}}"# + "\n"
}

extension LineClient {
    /// The next answer (a line with an `id` member), skipping progress notifications.
    func nextAnswer(timeout: Double = 30) throws -> [String: Any] {
        while true {
            let message = try readJSON(timeout: timeout)
            if message["method"] == nil { return message }
        }
    }
}

/// How many times something happened, from any thread.
final class Counter: Sendable {
    private let count = Locked(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
