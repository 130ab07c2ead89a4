import CBOR
import Dispatch
import Synchronization
import Testing
import TestSupport
import VirtualAuthenticator

@Suite("CTAPHID framing", .ownThreads)
struct CTAPHIDTests {
    private func host(_ configuration: VirtualAuthenticatorConfiguration = VirtualAuthenticatorConfiguration(),
                      messageTimeoutMilliseconds: Int = 1000) throws -> HIDHost {
        HIDHost(device: try VirtualHIDDevice(configuration: configuration,
                                             messageTimeoutMilliseconds: messageTimeoutMilliseconds))
    }

    private func expectError(_ message: HIDMessage, _ code: UInt8, on channel: UInt32,
                             sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(message == HIDMessage(channel: channel, command: 0x3F, payload: [code]), sourceLocation: sourceLocation)
    }

    @Test("INIT on the broadcast channel: 17 bytes, nonce echoed, a new channel, version 2, WINK|CBOR|NMSG")
    func initialize() throws {
        let host = try host()
        let nonce: [UInt8] = [9, 8, 7, 6, 5, 4, 3, 2]
        host.send(channel: HIDHost.broadcast, command: 0x06, payload: nonce)
        let reply = try host.receive()
        #expect(reply.channel == HIDHost.broadcast)
        #expect(reply.command == 0x06)
        #expect(reply.payload.count == 17)
        #expect(Array(reply.payload[0..<8]) == nonce)
        let channel = HIDHost.channel(of: Array(reply.payload[8..<12]))
        #expect(channel != 0 && channel != HIDHost.broadcast)
        #expect(reply.payload[12] == 2)
        #expect(reply.payload[16] == 0x01 | 0x04 | 0x08)
        // Each INIT allocates a different channel.
        #expect(try host.open() != channel)
    }

    @Test("PING echoes a multi-packet payload; WINK answers empty")
    func ping() throws {
        let host = try host()
        let channel = try host.open()
        let payload = (0..<300).map { UInt8($0 & 0xFF) }
        #expect(try host.transact(channel: channel, command: 0x01, payload: payload)
                == HIDMessage(channel: channel, command: 0x01, payload: payload))
        #expect(try host.transact(channel: channel, command: 0x08, payload: [])
                == HIDMessage(channel: channel, command: 0x08, payload: []))
    }

    @Test("CBOR carries CTAP2: getInfo and a registration")
    func cbor() throws {
        let host = try host()
        let channel = try host.open()
        let info = try host.transact(channel: channel, command: 0x10, payload: [0x04])
        #expect(info.command == 0x10)
        #expect(info.payload.first == 0)
        let registration = try host.transact(channel: channel, command: 0x10,
                                             payload: [0x01] + TestPlatform.makeCredentialParameters().encoded())
        let response = try TestPlatform.parse(registration.payload)
        #expect(response.isOK)
        #expect(response.body?[1] == "packed")
    }

    @Test("channel 0, an unallocated channel, or a non-INIT on broadcast: ERR_INVALID_CHANNEL")
    func invalidChannel() throws {
        let host = try host()
        let channel = try host.open()
        host.send(channel: 0, command: 0x01, payload: [1])
        expectError(try host.receive(), 0x0B, on: 0)
        host.send(channel: channel &+ 1000, command: 0x01, payload: [1])
        expectError(try host.receive(), 0x0B, on: channel &+ 1000)
        host.send(channel: HIDHost.broadcast, command: 0x10, payload: [0x04])
        expectError(try host.receive(), 0x0B, on: HIDHost.broadcast)
    }

    @Test("unknown commands and CTAPHID_MSG (no U2F): ERR_INVALID_CMD")
    func invalidCommand() throws {
        let host = try host()
        let channel = try host.open()
        expectError(try host.transact(channel: channel, command: 0x03, payload: [0, 1, 0, 0]), 0x01, on: channel)
        expectError(try host.transact(channel: channel, command: 0x55, payload: []), 0x01, on: channel)
        expectError(try host.transact(channel: channel, command: 0x3B, payload: [1]), 0x01, on: channel)
    }

    @Test("BCNT above 7609, and INIT with a length other than 8: ERR_INVALID_LEN")
    func invalidLength() throws {
        let host = try host()
        let channel = try host.open()
        host.device.write(HIDHost.packets(channel: channel, command: 0x10, payload: [0x04], declaredLength: 7610)[0])
        expectError(try host.receive(), 0x03, on: channel)
        host.send(channel: HIDHost.broadcast, command: 0x06, payload: [1, 2, 3])
        expectError(try host.receive(), 0x03, on: HIDHost.broadcast)
        // An empty CBOR message has no command byte.
        expectError(try host.transact(channel: channel, command: 0x10, payload: []), 0x03, on: channel)
    }

    @Test("a truncated message times out with ERR_MSG_TIMEOUT and is dropped")
    func truncatedMessage() throws {
        let host = try host(messageTimeoutMilliseconds: 50)
        let channel = try host.open()
        let packets = HIDHost.packets(channel: channel, command: 0x01, payload: [UInt8](repeating: 7, count: 100))
        host.device.write(packets[0])
        expectError(try host.receive(), 0x05, on: channel)
        // The late continuation is ignored; the channel works again.
        host.device.write(packets[1])
        #expect(try host.transact(channel: channel, command: 0x01, payload: [1, 2]).payload == [1, 2])
    }

    @Test("an out-of-order continuation: ERR_INVALID_SEQ")
    func badSequence() throws {
        let host = try host()
        let channel = try host.open()
        var packets = HIDHost.packets(channel: channel, command: 0x01, payload: [UInt8](repeating: 3, count: 200))
        packets[2][4] = 5
        host.device.write(packets[0])
        host.device.write(packets[2])
        expectError(try host.receive(), 0x04, on: channel)
        // A new message started in the middle of another is also out of sequence.
        host.device.write(packets[0])
        host.device.write(packets[0])
        expectError(try host.receive(), 0x04, on: channel)
    }

    @Test("another channel while one is receiving or processing: ERR_CHANNEL_BUSY")
    func busyChannel() throws {
        let host = try host(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        let first = try host.open()
        let second = try host.open()
        let packets = HIDHost.packets(channel: first, command: 0x01, payload: [UInt8](repeating: 1, count: 100))
        host.device.write(packets[0])
        host.send(channel: second, command: 0x01, payload: [2])
        expectError(try host.receive(), 0x06, on: second)
        host.device.write(packets[1])
        #expect(try host.receive().payload == [UInt8](repeating: 1, count: 100))

        // While a request waits for the user, other channels are busy too.
        host.send(channel: first, command: 0x10, payload: [0x0B])
        let keepalive = try host.receive(skippingKeepalives: false)
        #expect(keepalive == HIDMessage(channel: first, command: 0x3B, payload: [0x02]))
        host.send(channel: second, command: 0x10, payload: [0x04])
        var reply = try host.receive(skippingKeepalives: false)
        while reply.command == 0x3B { reply = try host.receive(skippingKeepalives: false) }
        expectError(reply, 0x06, on: second)
        host.send(channel: first, command: 0x11, payload: [])
        #expect(try host.receive() == HIDMessage(channel: first, command: 0x10, payload: [0x2D]))
    }

    @Test("INIT on an allocated channel resynchronises it, dropping its partial message")
    func resync() throws {
        let host = try host()
        let channel = try host.open()
        let packets = HIDHost.packets(channel: channel, command: 0x01, payload: [UInt8](repeating: 4, count: 100))
        host.device.write(packets[0])
        let nonce: [UInt8] = [8, 8, 8, 8, 1, 1, 1, 1]
        host.send(channel: channel, command: 0x06, payload: nonce)
        let reply = try host.receive()
        #expect(reply.channel == channel)
        #expect(reply.command == 0x06)
        #expect(Array(reply.payload[0..<8]) == nonce)
        #expect(HIDHost.channel(of: Array(reply.payload[8..<12])) == channel)
        #expect(try host.transact(channel: channel, command: 0x01, payload: [5]).payload == [5])
    }

    @Test("a request waiting for the user sends KEEPALIVE(UPNEEDED), then its answer")
    func keepalives() throws {
        let host = try host(VirtualAuthenticatorConfiguration(presence: .approveAfter(milliseconds: 250)))
        let channel = try host.open()
        host.send(channel: channel, command: 0x10, payload: [0x0B])
        var keepalives = 0
        var reply = try host.receive(skippingKeepalives: false)
        while reply.command == 0x3B {
            #expect(reply == HIDMessage(channel: channel, command: 0x3B, payload: [0x02]))
            keepalives += 1
            reply = try host.receive(skippingKeepalives: false)
        }
        #expect(keepalives >= 1)
        #expect(reply == HIDMessage(channel: channel, command: 0x10, payload: [0x00]))
    }

    @Test("CANCEL written from another thread while the host blocks in read: status 0x2D, no reply to CANCEL")
    func cancelFromAnotherThread() async throws {
        let host = try host(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        let channel = try host.open()
        let request = [0x01] + TestPlatform.makeCredentialParameters().encoded()
        let waiting = DispatchSemaphore(value: 0)
        let result: Result<HIDMessage, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                host.send(channel: channel, command: 0x10, payload: request)
                // Like libfido2: block in read until the reply, skipping keepalives.
                let result = Result { () throws -> HIDMessage in
                    while true {
                        let message = try host.receive(timeoutMilliseconds: 10_000, skippingKeepalives: false)
                        if message.command == 0x3B { waiting.signal(); continue }
                        return message
                    }
                }
                continuation.resume(returning: result)
            }
            DispatchQueue.global().async {
                waiting.wait()
                host.device.write(HIDHost.packets(channel: channel, command: 0x11, payload: [])[0])
            }
        }
        #expect(try result.get() == HIDMessage(channel: channel, command: 0x10, payload: [0x2D]))
        #expect(host.device.read(timeoutMilliseconds: 100) == nil)
    }

    @Test("close() abandons a waiting request and its queued packets; the device stays usable")
    func closeAbandonsRequest() throws {
        let host = try host(VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        let channel = try host.open()
        host.send(channel: channel, command: 0x10, payload: [0x0B])
        #expect(try host.receive(skippingKeepalives: false).command == 0x3B)
        host.device.close()
        host.device.authenticator.presencePolicy = .approve
        // The abandoned request's answer never arrives; a new request on the same channel works.
        var reply = try host.transact(channel: channel, command: 0x10, payload: [0x0B])
        while reply.command == 0x3B { reply = try host.receive(skippingKeepalives: false) }
        #expect(reply == HIDMessage(channel: channel, command: 0x10, payload: [0x00]))
        #expect(host.device.read(timeoutMilliseconds: 50) == nil)
    }

    @Test("read(into:) fills a caller's buffer with one packet")
    func readIntoBuffer() throws {
        let host = try host()
        host.send(channel: HIDHost.broadcast, command: 0x06, payload: [1, 2, 3, 4, 5, 6, 7, 8])
        var buffer = [UInt8](repeating: 0xEE, count: 64)
        let filled = buffer.withUnsafeMutableBytes { host.device.read(into: $0, timeoutMilliseconds: 1000) }
        #expect(filled)
        #expect(Array(buffer[0..<7]) == [0xFF, 0xFF, 0xFF, 0xFF, 0x86, 0x00, 17])
        var small = [UInt8](repeating: 0, count: 10)
        #expect(!small.withUnsafeMutableBytes { host.device.read(into: $0, timeoutMilliseconds: 0) })
    }

    @Test("packets of any content never crash the device, which then still works")
    func fuzz() throws {
        let host = try host(messageTimeoutMilliseconds: 20)
        var generator = SystemRandomNumberGenerator()
        let channel = try host.open()
        for round in 0..<3000 {
            var packet = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if round % 3 == 0 { packet.replaceSubrange(0..<4, with: HIDHost.channelBytes(channel)) }
            if round % 7 == 0 { packet = Array(packet.prefix(Int.random(in: 0...80, using: &generator))) }
            host.device.write(packet)
            while let reply = host.device.read(timeoutMilliseconds: 0) { #expect(reply.count == 64) }
        }
        host.device.close()
        let fresh = try host.open()
        #expect(try host.transact(channel: fresh, command: 0x01, payload: [42]).payload == [42])
    }
}
