import Locking
import PacketDevice
import Testing
import TestSupport

/// `CTAPHIDPacketDevice.connect()`: a device with one connection hands out
/// its own `write`, `read` and `close`; a device that tells hosts apart
/// gives each libfido2 handle a connection of its own.
@Suite(.ownThreads) struct PacketConnectionTests {
    /// A device with one connection that records what reaches it and
    /// answers each read from its queue (nil when empty: no answer can come).
    final class SingleConnectionDevice: CTAPHIDPacketDevice {
        let written = Locked<[[UInt8]]>([])
        let waits = Locked<[Int]>([])
        let closes = Locked(0)
        let answers: Locked<[[UInt8]]>

        init(answers: [[UInt8]]) { self.answers = Locked(answers) }

        func write(_ packet: [UInt8]) { written.withLock { $0.append(packet) } }
        func read(timeoutMilliseconds: Int) -> [UInt8]? {
            waits.withLock { $0.append(timeoutMilliseconds) }
            return answers.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        }
        func close() { closes.withLock { $0 += 1 } }
    }

    /// A device that gives each host a connection of its own.
    final class PerHostDevice: CTAPHIDPacketDevice {
        final class Connection: CTAPHIDPacketConnection {
            let id: Int
            let written = Locked<[[UInt8]]>([])
            let closed = Locked(false)
            init(id: Int) { self.id = id }
            func write(_ packet: [UInt8]) { written.withLock { $0.append(packet) } }
            func read(timeoutMilliseconds: Int) -> [UInt8]? { nil }
            func close() { closed.withLock { $0 = true } }
        }

        let connections = Locked<[Connection]>([])
        let sharedUse = Locked(0)

        func write(_ packet: [UInt8]) { sharedUse.withLock { $0 += 1 } }
        func read(timeoutMilliseconds: Int) -> [UInt8]? { sharedUse.withLock { $0 += 1 }; return nil }
        func close() { sharedUse.withLock { $0 += 1 } }
        func connect() -> any CTAPHIDPacketConnection {
            connections.withLock { connections in
                let connection = Connection(id: connections.count)
                connections.append(connection)
                return connection
            }
        }
    }

    @Test("a device with one connection: connect() forwards write, read (with its timeout) and close to the device")
    func sharedConnectionForwards() {
        let answer = CTAPHID.packets(channel: 9, command: .ping, payload: [1, 2, 3])[0]
        let device = SingleConnectionDevice(answers: [answer])
        let connection = device.connect()
        let request = CTAPHID.packets(channel: 9, command: .ping, payload: [1, 2, 3])[0]
        connection.write(request)
        #expect(device.written.withLock { $0 } == [request])
        #expect(connection.read(timeoutMilliseconds: 250) == answer)
        #expect(connection.read(timeoutMilliseconds: -1) == nil, "an empty device answers nil at once")
        #expect(device.waits.withLock { $0 } == [250, -1], "the timeout reaches the device as given (negative: no limit)")
        connection.close()
        #expect(device.closes.withLock { $0 } == 1)
    }

    @Test("a device with one connection: two handles share it, as the protocol's default promises")
    func sharedConnectionIsShared() {
        let device = SingleConnectionDevice(answers: [])
        let first = device.connect(), second = device.connect()
        first.write([1])
        second.write([2])
        second.close()
        #expect(device.written.withLock { $0 } == [[1], [2]])
        #expect(device.closes.withLock { $0 } == 1, "closing either closes the one connection")
    }

    @Test("a device that tells hosts apart: each connect() is a new connection, and closing one leaves the other")
    func perHostConnections() throws {
        let device = PerHostDevice()
        let first = device.connect(), second = device.connect()
        first.write([0xA])
        second.write([0xB])
        first.close()
        let made = device.connections.withLock { $0 }
        try #require(made.count == 2)
        #expect(made[0].written.withLock { $0 } == [[0xA]] && made[1].written.withLock { $0 } == [[0xB]])
        #expect(made[0].closed.withLock { $0 } && !made[1].closed.withLock { $0 })
        #expect(device.sharedUse.withLock { $0 } == 0, "the device's own shared connection is not used")
    }
}
