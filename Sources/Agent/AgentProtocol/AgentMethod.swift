/// One method of the socket protocol: its name, the types of its params
/// and result, and what answering it may wait on. The agent's dispatcher
/// and the CLI's client both go through these, so the wire format and the
/// method's timing class are each declared once, here.
public protocol AgentMethod: Sendable {
    associatedtype Params: Codable & Sendable
    associatedtype Result: Codable & Sendable
    static var name: String { get }
    /// Read by the server (turn-taking, answering on the I/O thread) and the
    /// client (how long it waits for the answer): see `AnswerWait`.
    static var answerWait: AnswerWait { get }
}

/// Params of a method that takes none: `{}` or no `params` at all.
public struct NoParams: Codable, Sendable, Equatable {
    public init() {}
}

/// Which authenticator a request should use; every device-facing method takes these.
///
/// On the wire it is an object, `{"device": "virtual", "virtualState": "…"}`,
/// and it is always sent so. A method's `device` member may also be a plain
/// string, `"device": "virtual"`, short for `{"device": "virtual"}`: the form
/// a person writes first (docs/PROTOCOL.md, "Methods").
public struct DeviceChoice: Codable, Sendable, Equatable {
    /// `virtual` for the software authenticator, a `/dev/hidrawN` path, or
    /// nil for the configured default (else the only connected key).
    public var device: String?
    /// The software authenticator's state file (default under $XDG_DATA_HOME).
    public var virtualState: String?

    public init(device: String? = nil, virtualState: String? = nil) {
        self.device = device
        self.virtualState = virtualState
    }

    private enum CodingKeys: String, CodingKey { case device, virtualState }

    public init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if let device = try? single.decode(String.self) {
            self.init(device: device)
            return
        }
        guard let container = try? decoder.container(keyedBy: CodingKeys.self) else {
            throw DecodingError.dataCorruptedError(
                in: single, debugDescription: "should be \"virtual\", a device path, or an object {\"device\", \"virtualState\"}")
        }
        self.init(device: try container.decodeIfPresent(String.self, forKey: .device),
                  virtualState: try container.decodeIfPresent(String.self, forKey: .virtualState))
    }
}
