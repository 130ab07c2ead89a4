import VirtualAuthenticator

extension FuzzTarget {
    /// CTAPHID as libfido2 drives a key: 64-byte packets into a fresh
    /// `VirtualHIDDevice`, every answer read back after each one.
    static let ctaphid = FuzzTarget(
        name: "ctaphid",
        summary: "64-byte CTAPHID packets into the virtual authenticator's HID device (channel 00000001 = the last one INIT allocated)",
        maximumLength: 64 * 160,
        seeds: {
            let ceremony = try await RecordedCeremony.shared()
            let packets = ceremony.hostPackets
            return [
                Seed("libfido2-session", packets.flatMap { $0 }),
                Seed("libfido2-open", packets.prefix(4).flatMap { $0 }),
                // A message whose continuation skips a sequence number, then a CANCEL.
                Seed("bad-sequence", CTAPHIDFuzzing.initPacket()
                    + CTAPHIDFuzzing.packet([0, 0, 0, 1, 0x90, 0x01, 0x00] + [0x01])
                    + CTAPHIDFuzzing.packet([0, 0, 0, 1, 0x01])
                    + CTAPHIDFuzzing.packet([0, 0, 0, 1, 0x91])),
                // PING of the largest length, WINK, LOCK, an unknown command.
                Seed("ping-max-wink-lock", CTAPHIDFuzzing.initPacket()
                    + CTAPHIDFuzzing.packet([0, 0, 0, 1, 0x81, 0x1D, 0xB9] + [UInt8](repeating: 0xAB, count: 57))
                    + CTAPHIDFuzzing.packet([0, 0, 0, 1, 0x88, 0, 0])
                    + CTAPHIDFuzzing.packet([0, 0, 0, 1, 0x84, 0, 1, 10])
                    + CTAPHIDFuzzing.packet([0, 0, 0, 1, 0xC0, 0, 0])),
            ]
        },
        run: { bytes in
            let device = CTAPHIDFuzzing.freshDevice()
            var channel: [UInt8]? = nil
            var offset = 0
            while offset < bytes.count {
                var packet = Array(bytes[offset..<min(offset + 64, bytes.count)])
                offset += 64
                if let channel, packet.starts(with: CTAPHIDFuzzing.placeholderChannel) {
                    packet.replaceSubrange(0..<4, with: channel)
                }
                device.write(packet)
                while let answer = device.read(timeoutMilliseconds: 0) {
                    try expect(answer.count == 64, "the device answered a packet of \(answer.count) bytes")
                    if let allocated = CTAPHIDFuzzing.allocatedChannel(in: answer) { channel = allocated }
                }
            }
            device.close()
        })

    /// CTAP2 requests (command byte ‖ CBOR) into a fresh authenticator, as the
    /// HID device hands them over once reassembled. The input is a sequence of
    /// requests, each a 2-byte big-endian length and the request, so a
    /// makeCredential can be followed by the getAssertion that finds it.
    static let ctap2 = FuzzTarget(
        name: "ctap2",
        summary: "CTAP2 requests, each a 2-byte big-endian length and command byte ‖ CBOR, into a fresh CTAP2Authenticator",
        maximumLength: 8192,
        seeds: {
            let ceremony = try await RecordedCeremony.shared()
            var seeds = ceremony.requests.enumerated().map { index, request in
                Seed("libfido2-\(index)-\(CTAPHIDFuzzing.commandName(request.first))", CTAPHIDFuzzing.lengthPrefixed([request]))
            }
            seeds.append(Seed("libfido2-session", CTAPHIDFuzzing.lengthPrefixed(ceremony.requests)))
            // authenticatorReset, selection, an unknown command, a lone command byte with a CBOR map of nulls.
            seeds.append(Seed("reset-selection-unknown", CTAPHIDFuzzing.lengthPrefixed([[0x07], [0x0B], [0x55], [0x01, 0xA1, 0x01, 0xF6]])))
            return seeds
        },
        run: { bytes in
            let authenticator = CTAPHIDFuzzing.freshAuthenticator()
            var offset = 0
            while offset + 2 <= bytes.count {
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                offset += 2
                let request = Array(bytes[offset..<min(offset + length, bytes.count)])
                offset += request.count
                let response = authenticator.process(request)
                try expect(!response.isEmpty, "an empty response (no status byte) to \(request.prefix(8))")
            }
        })
}

/// Shared by the CTAPHID and CTAP2 targets and their seeds.
enum CTAPHIDFuzzing {
    /// Stands for "the channel INIT allocated": the fuzzer cannot know the
    /// random one, and with it a seed recorded from libfido2 replays as libfido2 sent it.
    static let placeholderChannel: [UInt8] = [0, 0, 0, 1]

    /// An authenticator with no state file: nothing touches the disk, the
    /// simulated user approves at once, so every request is answered inline.
    static func freshAuthenticator() -> CTAP2Authenticator {
        do {
            return try CTAP2Authenticator(configuration: VirtualAuthenticatorConfiguration(builtInUV: true))
        } catch {
            fatalError("an in-memory authenticator cannot be made: \(error)")
        }
    }

    static func freshDevice() -> VirtualHIDDevice {
        VirtualHIDDevice(authenticator: freshAuthenticator())
    }

    /// INIT on the broadcast channel with a fixed nonce: what libfido2 sends first.
    static func initPacket() -> [UInt8] {
        packet([0xFF, 0xFF, 0xFF, 0xFF, 0x86, 0x00, 0x08, 1, 2, 3, 4, 5, 6, 7, 8])
    }

    static func packet(_ prefix: [UInt8]) -> [UInt8] {
        prefix + [UInt8](repeating: 0, count: max(0, 64 - prefix.count))
    }

    /// The channel an INIT response on the broadcast channel allocates.
    static func allocatedChannel(in answer: [UInt8]) -> [UInt8]? {
        guard answer.count >= 7 + 12, answer.starts(with: [0xFF, 0xFF, 0xFF, 0xFF]), answer[4] == 0x86 else { return nil }
        return Array(answer[15..<19])
    }

    /// A CTAP2 command byte's name, for seed file names.
    static func commandName(_ byte: UInt8?) -> String {
        let names: [UInt8: String] = [0x01: "makeCredential", 0x02: "getAssertion", 0x04: "getInfo", 0x06: "clientPIN",
                                      0x07: "reset", 0x08: "getNextAssertion", 0x0A: "credentialManagement", 0x0B: "selection"]
        return byte.map { names[$0] ?? "command-\($0)" } ?? "empty"
    }

    static func lengthPrefixed(_ messages: [[UInt8]]) -> [UInt8] {
        messages.flatMap { [UInt8(truncatingIfNeeded: $0.count >> 8), UInt8(truncatingIfNeeded: $0.count)] + $0 }
    }

    /// Recorded host packets with the allocated channel replaced by the
    /// placeholder, so they replay against a device that allocates another one.
    static func withPlaceholderChannel(_ packets: [[UInt8]]) -> [[UInt8]] {
        // libfido2 writes a leading report-ID byte; the device strips it, so do we.
        let packets = packets.map { $0.count == 65 ? Array($0.dropFirst()) : $0 }
        let allocated = packets.lazy.map { Array($0.prefix(4)) }.first { $0 != [0xFF, 0xFF, 0xFF, 0xFF] }
        return packets.map { packet in
            guard let allocated, packet.starts(with: allocated) else { return packet }
            return placeholderChannel + packet.dropFirst(4)
        }
    }

    /// The CTAPHID_CBOR messages in a packet stream, reassembled.
    static func cborMessages(in packets: [[UInt8]]) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var current: (length: Int, data: [UInt8])?
        for raw in packets {
            let packet = raw.count == 65 ? Array(raw.dropFirst()) : raw
            guard packet.count == 64 else { continue }
            if packet[4] & 0x80 != 0 {
                current = nil
                guard packet[4] == 0x90 else { continue }
                let length = Int(packet[5]) << 8 | Int(packet[6])
                current = (length, Array(packet[7..<min(64, 7 + length)]))
            } else if var message = current {
                message.data += packet[5..<min(64, 5 + message.length - message.data.count)]
                current = message
            }
            if let message = current, message.data.count >= message.length {
                messages.append(message.data)
                current = nil
            }
        }
        return messages
    }
}
