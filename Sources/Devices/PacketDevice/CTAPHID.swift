/// CTAPHID (CTAP 2.1 §11.2): the packet layout, command and error codes,
/// and message framing — the one copy, for libfido2's transport hooks in
/// FIDO and the software authenticator's HID side.
public enum CTAPHID {
    public static let packetSize = 64
    public static let initHeaderSize = 7   // CID(4) ‖ CMD(1) ‖ BCNT(2)
    public static let continuationHeaderSize = 5  // CID(4) ‖ SEQ(1)
    public static let initPayloadSize = packetSize - initHeaderSize          // 57
    public static let continuationPayloadSize = packetSize - continuationHeaderSize  // 59
    /// 57 + 128 × 59: what sequence numbers 0…127 can carry.
    public static let maximumMessageSize = initPayloadSize + 128 * continuationPayloadSize

    public static let broadcastChannel: UInt32 = 0xFFFF_FFFF
    /// Bit 7 of byte 4 marks an initialization packet.
    public static let initFlag: UInt8 = 0x80

    /// Command codes (without the init flag).
    public enum Command: UInt8, Sendable {
        case ping = 0x01
        case msg = 0x03
        case lock = 0x04
        case initialize = 0x06
        case wink = 0x08
        case cbor = 0x10
        case cancel = 0x11
        case keepalive = 0x3B
        case error = 0x3F
    }

    /// CTAPHID_ERROR codes.
    public enum ErrorCode: UInt8, Sendable {
        case invalidCommand = 0x01
        case invalidParameter = 0x02
        case invalidLength = 0x03
        case invalidSequence = 0x04
        case messageTimeout = 0x05
        case channelBusy = 0x06
        case invalidChannel = 0x0B
        case other = 0x7F
    }

    /// Splits a message into 64-byte packets on `channel`. The payload must
    /// be at most `maximumMessageSize`: past it the sequence numbers wrap and
    /// BCNT is cut to 16 bits. Every caller's payload is bounded (a received
    /// message, a fixed answer, or a CBOR answer checked before it is sent).
    public static func packets(channel: UInt32, command: Command, payload: [UInt8]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        result.reserveCapacity(1 + (max(0, payload.count - initPayloadSize) + continuationPayloadSize - 1) / continuationPayloadSize)
        var packet = [UInt8](repeating: 0, count: packetSize)
        writeChannel(channel, into: &packet)
        packet[4] = command.rawValue | initFlag
        packet[5] = UInt8(truncatingIfNeeded: payload.count >> 8)
        packet[6] = UInt8(truncatingIfNeeded: payload.count)
        var offset = min(payload.count, initPayloadSize)
        packet.replaceSubrange(initHeaderSize..<(initHeaderSize + offset), with: payload[0..<offset])
        result.append(packet)
        var sequence: UInt8 = 0
        while offset < payload.count {
            var continuation = [UInt8](repeating: 0, count: packetSize)
            writeChannel(channel, into: &continuation)
            continuation[4] = sequence
            let count = min(payload.count - offset, continuationPayloadSize)
            continuation.replaceSubrange(continuationHeaderSize..<(continuationHeaderSize + count),
                                         with: payload[offset..<(offset + count)])
            result.append(continuation)
            offset += count
            sequence &+= 1
        }
        return result
    }

    public static func channel(of packet: [UInt8]) -> UInt32 {
        UInt32(packet[0]) << 24 | UInt32(packet[1]) << 16 | UInt32(packet[2]) << 8 | UInt32(packet[3])
    }

    public static func writeChannel(_ channel: UInt32, into packet: inout [UInt8]) {
        packet[0] = UInt8(truncatingIfNeeded: channel >> 24)
        packet[1] = UInt8(truncatingIfNeeded: channel >> 16)
        packet[2] = UInt8(truncatingIfNeeded: channel >> 8)
        packet[3] = UInt8(truncatingIfNeeded: channel)
    }

    public static func channelBytes(_ channel: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: channel >> 24), UInt8(truncatingIfNeeded: channel >> 16),
         UInt8(truncatingIfNeeded: channel >> 8), UInt8(truncatingIfNeeded: channel)]
    }
}
