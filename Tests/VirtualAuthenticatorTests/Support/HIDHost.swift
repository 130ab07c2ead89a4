import VirtualAuthenticator

/// A CTAPHID message as the host sees it.
struct HIDMessage: Equatable {
    let channel: UInt32
    let command: UInt8  // without the init bit
    let payload: [UInt8]
}

/// The host side of CTAPHID, written from the spec (CTAP 2.1 §11.2.4), for tests.
struct HIDHost {
    static let broadcast: UInt32 = 0xFFFF_FFFF
    let device: VirtualHIDDevice

    static func packets(channel: UInt32, command: UInt8, payload: [UInt8], declaredLength: Int? = nil) -> [[UInt8]] {
        let length = declaredLength ?? payload.count
        var packets: [[UInt8]] = []
        var first = channelBytes(channel) + [command | 0x80, UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        first += payload.prefix(57)
        packets.append(first + [UInt8](repeating: 0, count: 64 - first.count))
        var offset = min(57, payload.count)
        var sequence: UInt8 = 0
        while offset < payload.count {
            var packet = channelBytes(channel) + [sequence]
            packet += payload[offset..<min(payload.count, offset + 59)]
            packets.append(packet + [UInt8](repeating: 0, count: 64 - packet.count))
            offset += 59
            sequence += 1
        }
        return packets
    }

    static func channelBytes(_ channel: UInt32) -> [UInt8] {
        [UInt8(channel >> 24 & 0xFF), UInt8(channel >> 16 & 0xFF), UInt8(channel >> 8 & 0xFF), UInt8(channel & 0xFF)]
    }

    static func channel(of packet: [UInt8]) -> UInt32 {
        UInt32(packet[0]) << 24 | UInt32(packet[1]) << 16 | UInt32(packet[2]) << 8 | UInt32(packet[3])
    }

    func send(channel: UInt32, command: UInt8, payload: [UInt8]) {
        for packet in Self.packets(channel: channel, command: command, payload: payload) { device.write(packet) }
    }

    /// Reads one whole message; keepalives are returned as messages too unless skipped.
    func receive(timeoutMilliseconds: Int = 5000, skippingKeepalives: Bool = true) throws -> HIDMessage {
        while true {
            guard let first = device.read(timeoutMilliseconds: timeoutMilliseconds) else {
                throw TestFailure.unexpected("no packet within \(timeoutMilliseconds) ms")
            }
            guard first.count == 64, first[4] & 0x80 != 0 else {
                throw TestFailure.unexpected("expected an initialization packet")
            }
            let command = first[4] & 0x7F
            if skippingKeepalives && command == 0x3B { continue }
            let length = Int(first[5]) << 8 | Int(first[6])
            var payload = Array(first[7..<(7 + min(length, 57))])
            var sequence: UInt8 = 0
            while payload.count < length {
                guard let next = device.read(timeoutMilliseconds: timeoutMilliseconds), next.count == 64,
                      next[4] == sequence, Self.channel(of: next) == Self.channel(of: first) else {
                    throw TestFailure.unexpected("bad continuation packet")
                }
                payload += next[5..<(5 + min(length - payload.count, 59))]
                sequence += 1
            }
            return HIDMessage(channel: Self.channel(of: first), command: command, payload: payload)
        }
    }

    /// CTAPHID_INIT on the broadcast channel; returns the allocated channel.
    func open(nonce: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]) throws -> UInt32 {
        send(channel: Self.broadcast, command: 0x06, payload: nonce)
        let reply = try receive()
        guard reply.command == 0x06, reply.payload.count == 17, Array(reply.payload[0..<8]) == nonce else {
            throw TestFailure.unexpected("bad INIT reply")
        }
        return Self.channel(of: Array(reply.payload[8..<12]))
    }

    func transact(channel: UInt32, command: UInt8, payload: [UInt8]) throws -> HIDMessage {
        send(channel: channel, command: command, payload: payload)
        return try receive()
    }
}
