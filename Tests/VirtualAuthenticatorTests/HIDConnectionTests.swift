import Testing
import TestSupport
import VirtualAuthenticator

/// Host connections (one per libfido2 handle): each hears the answers to what
/// it sent, and closing one leaves the others' requests alone.
@Suite("CTAPHID connections", .ownThreads)
struct HIDConnectionTests {
    /// The host side of one connection, with HIDHost's framing.
    struct Host {
        let connection: VirtualHIDConnection

        func send(channel: UInt32, command: UInt8, payload: [UInt8]) {
            for packet in HIDHost.packets(channel: channel, command: command, payload: payload) {
                connection.write(packet)
            }
        }

        /// One whole message, keepalives skipped; nil when none comes.
        func receive(timeoutMilliseconds: Int = 5000) -> HIDMessage? {
            while true {
                guard let first = connection.read(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
                let command = first[4] & 0x7F
                if command == 0x3B { continue }
                let length = Int(first[5]) << 8 | Int(first[6])
                var payload = Array(first[7..<(7 + min(length, 57))])
                while payload.count < length {
                    guard let next = connection.read(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
                    payload += next[5..<(5 + min(length - payload.count, 59))]
                }
                return HIDMessage(channel: HIDHost.channel(of: first), command: command, payload: payload)
            }
        }

        func open(nonce: [UInt8]) throws -> UInt32 {
            send(channel: HIDHost.broadcast, command: 0x06, payload: nonce)
            let reply = try #require(receive())
            #expect(reply.command == 0x06 && Array(reply.payload[0..<8]) == nonce, "its own INIT reply")
            return HIDHost.channel(of: Array(reply.payload[8..<12]))
        }
    }

    private let getInfo: [UInt8] = [0x04]

    @Test("an answer queued for one connection survives another connection's close")
    func queuedAnswerSurvivesAnotherClose() throws {
        let device = try VirtualHIDDevice(configuration: VirtualAuthenticatorConfiguration())
        let first = Host(connection: device.openConnection()), second = Host(connection: device.openConnection())
        _ = try first.open(nonce: [1, 1, 1, 1, 1, 1, 1, 1])
        let channel = try second.open(nonce: [2, 2, 2, 2, 2, 2, 2, 2])
        second.send(channel: channel, command: 0x10, payload: getInfo)  // answered inline: queued now
        first.connection.close()
        let reply = try #require(second.receive(), "the answer is still there")
        #expect(reply.channel == channel && reply.command == 0x10 && reply.payload.first == 0x00)
    }

    @Test("closing a connection cancels only its own waiting request")
    func closeCancelsOnlyItsOwnRequest() throws {
        let device = try VirtualHIDDevice(configuration: VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        let waiting = Host(connection: device.openConnection()), other = Host(connection: device.openConnection())
        let channel = try waiting.open(nonce: [3, 3, 3, 3, 3, 3, 3, 3])
        _ = try other.open(nonce: [4, 4, 4, 4, 4, 4, 4, 4])
        // authenticatorSelection (0x0B) waits for a touch.
        waiting.send(channel: channel, command: 0x10, payload: [0x0B])
        #expect(waiting.connection.read(timeoutMilliseconds: 5000)?[4] == 0xBB, "a keepalive: it waits")
        other.connection.close()
        waiting.send(channel: channel, command: 0x11, payload: [])  // CANCEL: still this request's to end
        let reply = try #require(waiting.receive(), "the cancelled request answers")
        #expect(reply == HIDMessage(channel: channel, command: 0x10, payload: [0x2D]))
    }

    @Test("a closed connection's waiting request is cancelled, and the device serves the next one")
    func closedConnectionFreesTheDevice() throws {
        let device = try VirtualHIDDevice(configuration: VirtualAuthenticatorConfiguration(presence: .timeout(milliseconds: nil)))
        let gone = Host(connection: device.openConnection())
        let channel = try gone.open(nonce: [5, 5, 5, 5, 5, 5, 5, 5])
        gone.send(channel: channel, command: 0x10, payload: [0x0B])
        gone.connection.close()
        #expect(gone.connection.read(timeoutMilliseconds: -1) == nil, "a closed connection reads nothing")
        let next = Host(connection: device.openConnection())
        let fresh = try next.open(nonce: [6, 6, 6, 6, 6, 6, 6, 6])
        next.send(channel: fresh, command: 0x10, payload: getInfo)
        #expect(try #require(next.receive()).payload.first == 0x00, "not CHANNEL_BUSY")
    }

    @Test("a read with no limit returns nil when no answer can come, instead of waiting forever")
    func readWithNothingPendingEnds() throws {
        let device = try VirtualHIDDevice(configuration: VirtualAuthenticatorConfiguration())
        let host = Host(connection: device.openConnection())
        let channel = try host.open(nonce: [7, 7, 7, 7, 7, 7, 7, 7])
        host.send(channel: channel, command: 0x10, payload: getInfo)
        #expect(host.receive(timeoutMilliseconds: -1)?.command == 0x10)
        #expect(host.connection.read(timeoutMilliseconds: -1) == nil)
        // The built-in connection too.
        #expect(device.read(timeoutMilliseconds: -1) == nil)
    }
}
