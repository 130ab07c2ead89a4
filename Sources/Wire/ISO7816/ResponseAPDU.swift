/// A response APDU: response data followed by the status word.
public struct ResponseAPDU: Sendable, Equatable, CustomStringConvertible {
    public var data: [UInt8]
    public var status: StatusWord

    public init(data: [UInt8] = [], status: StatusWord) {
        self.data = data
        self.status = status
    }

    public init(parsing bytes: [UInt8]) throws(ISO7816Error) {
        guard bytes.count >= 2 else { throw .responseTooShort(bytes.count) }
        data = Array(bytes[..<(bytes.count - 2)])
        status = StatusWord(sw1: bytes[bytes.count - 2], sw2: bytes[bytes.count - 1])
    }

    /// The wire bytes: data then SW1 SW2.
    public var encoded: [UInt8] { data + status.bytes }

    /// Sizes and status only: response data may hold keys or secrets.
    public var description: String { "\(data.count) byte(s), SW \(status)" }
}

extension ResponseAPDU {
    public static let success = ResponseAPDU(status: .success)

    public static func status(_ sw: StatusWord) -> ResponseAPDU { ResponseAPDU(status: sw) }
}
