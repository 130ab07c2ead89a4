import PacketDevice
import Testing
import TestSupport

/// CTAPHID framing (CTAP 2.1 §11.2.4), the one copy FIDO's transport and the
/// software authenticator's HID side share. Judged by a reader written here
/// from the specification, not by `CTAPHID` itself.
@Suite(.ownThreads) struct CTAPHIDFramingTests {
    /// A message as the specification reads it back: the init packet's
    /// CID, CMD (bit 7 set) and big-endian BCNT, then continuation packets
    /// with SEQ 0, 1, … on the same CID, each carrying up to 59 bytes.
    struct Reassembled: Equatable {
        var channel: UInt32
        var command: UInt8
        var payload: [UInt8]
    }

    static func reassemble(_ packets: [[UInt8]]) throws -> Reassembled {
        let first = try #require(packets.first)
        try #require(first.count == 64)
        #expect(first[4] & 0x80 != 0, "the first packet is an initialization packet")
        let channel = UInt32(first[0]) << 24 | UInt32(first[1]) << 16 | UInt32(first[2]) << 8 | UInt32(first[3])
        let length = Int(first[5]) << 8 | Int(first[6])
        var payload = Array(first[7..<(7 + min(length, 57))])
        for (index, packet) in packets.dropFirst().enumerated() {
            try #require(packet.count == 64)
            #expect(Array(packet[0..<4]) == Array(first[0..<4]), "continuation \(index) is on the message's channel")
            #expect(packet[4] == UInt8(index), "continuation \(index) has SEQ \(index)")
            #expect(packet[4] & 0x80 == 0, "a continuation packet never has bit 7 set")
            payload += packet[5..<(5 + min(length - payload.count, 59))]
        }
        #expect(payload.count == length, "BCNT says how much the packets carry")
        return Reassembled(channel: channel, command: first[4] & 0x7F, payload: payload)
    }

    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) } }

    @Test("the sizes are the specification's: 64-byte packets, 57 bytes after an init header, 59 after a continuation's, 7609 in all")
    func sizes() {
        #expect(CTAPHID.packetSize == 64)
        #expect(CTAPHID.initHeaderSize == 7 && CTAPHID.initPayloadSize == 57)
        #expect(CTAPHID.continuationHeaderSize == 5 && CTAPHID.continuationPayloadSize == 59)
        #expect(CTAPHID.maximumMessageSize == 7609)
        #expect(CTAPHID.broadcastChannel == 0xFFFF_FFFF)
        #expect(CTAPHID.initFlag == 0x80)
    }

    @Test("command and error codes are CTAP 2.1 §11.2.9's")
    func codes() {
        let commands: [(CTAPHID.Command, UInt8)] = [(.ping, 0x01), (.msg, 0x03), (.lock, 0x04), (.initialize, 0x06), (.wink, 0x08),
                                                    (.cbor, 0x10), (.cancel, 0x11), (.keepalive, 0x3B), (.error, 0x3F)]
        for (command, code) in commands { #expect(command.rawValue == code, "\(command)") }
        let errors: [(CTAPHID.ErrorCode, UInt8)] = [(.invalidCommand, 0x01), (.invalidParameter, 0x02), (.invalidLength, 0x03),
                                                    (.invalidSequence, 0x04), (.messageTimeout, 0x05), (.channelBusy, 0x06),
                                                    (.invalidChannel, 0x0B), (.other, 0x7F)]
        for (error, code) in errors { #expect(error.rawValue == code, "\(error)") }
        // No command code collides with the init flag: OR-ing it in is reversible.
        for (command, _) in commands { #expect(command.rawValue & CTAPHID.initFlag == 0) }
    }

    @Test("an empty message is one init packet: CID, CMD|0x80, BCNT 0, zero padding")
    func emptyMessage() throws {
        let packets = CTAPHID.packets(channel: 0x0102_0304, command: .wink, payload: [])
        #expect(packets == [[0x01, 0x02, 0x03, 0x04, 0x88, 0x00, 0x00] + [UInt8](repeating: 0, count: 57)])
    }

    @Test("a keepalive is the one-byte message libfido2 reads: status in byte 7", arguments: [UInt8(0x01), 0x02])
    func keepalive(status: UInt8) throws {
        let packets = CTAPHID.packets(channel: 0xCAFE_F00D, command: .keepalive, payload: [status])
        #expect(packets.count == 1)
        #expect(Array(packets[0][0..<8]) == [0xCA, 0xFE, 0xF0, 0x0D, 0xBB, 0x00, 0x01, status])
        #expect(packets[0][8...].allSatisfy { $0 == 0 })
    }

    @Test("messages at each packet boundary split as the specification says and read back whole",
          arguments: [1, 56, 57, 58, 57 + 59, 57 + 59 + 1, 300, 1024, CTAPHID.maximumMessageSize - 1, CTAPHID.maximumMessageSize])
    func boundaries(length: Int) throws {
        let payload = Self.bytes(length)
        let packets = CTAPHID.packets(channel: 0x8000_0001, command: .cbor, payload: payload)
        let expectedCount = 1 + (max(0, length - 57) + 58) / 59
        #expect(packets.count == expectedCount)
        #expect(packets.allSatisfy { $0.count == 64 })
        // BCNT is big-endian.
        #expect(packets[0][5] == UInt8(length >> 8) && packets[0][6] == UInt8(length & 0xFF))
        #expect(try Self.reassemble(packets) == Reassembled(channel: 0x8000_0001, command: 0x10, payload: payload))
        // What follows the payload in the last packet is zero.
        let carriedInLast = length <= 57 ? length + 7 : (length - 57 - 1) % 59 + 1 + 5
        #expect(packets[packets.count - 1][carriedInLast...].allSatisfy { $0 == 0 })
    }

    @Test("the largest message uses every sequence number 0…127 and none with bit 7 set")
    func largestMessageUsesEverySequenceNumber() {
        let packets = CTAPHID.packets(channel: 7, command: .ping, payload: Self.bytes(CTAPHID.maximumMessageSize))
        #expect(packets.count == 129)
        #expect(packets.dropFirst().map { $0[4] } == Array(0...127))
    }

    @Test("the channel is big-endian and reads back through channel(of:) and channelBytes")
    func channelBytes() {
        for channel: UInt32 in [0, 1, 0x0102_0304, 0x8000_0000, CTAPHID.broadcastChannel] {
            var packet = [UInt8](repeating: 0xEE, count: 64)
            CTAPHID.writeChannel(channel, into: &packet)
            #expect(Array(packet[0..<4]) == CTAPHID.channelBytes(channel))
            #expect(CTAPHID.channel(of: packet) == channel)
            #expect(packet[4...].allSatisfy { $0 == 0xEE }, "writing the channel touches bytes 0…3 only")
        }
        #expect(CTAPHID.channelBytes(0x0A0B_0C0D) == [0x0A, 0x0B, 0x0C, 0x0D])
    }

    @Test("an INIT on the broadcast channel: FFFFFFFF 86 0008 and the nonce")
    func initOnBroadcast() {
        let nonce: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let packet = CTAPHID.packets(channel: CTAPHID.broadcastChannel, command: .initialize, payload: nonce)[0]
        #expect(Array(packet[0..<15]) == [0xFF, 0xFF, 0xFF, 0xFF, 0x86, 0x00, 0x08] + nonce)
    }
}
