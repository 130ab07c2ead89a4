import PacketDevice

/// Packets waiting for one host connection to read them, oldest first.
struct PacketQueue {
    private var packets: [[UInt8]] = []
    private var head = 0

    var count: Int { packets.count - head }
    var isEmpty: Bool { head >= packets.count }

    mutating func append(contentsOf more: [[UInt8]]) {
        packets += more
    }

    mutating func popFirst() -> [UInt8]? {
        guard head < packets.count else { return nil }
        let packet = packets[head]
        head += 1
        if head == packets.count {
            packets.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= packets.count {
            // Compacts now and then, so a long-lived queue does not keep read packets.
            packets.removeFirst(head)
            head = 0
        }
        return packet
    }

    /// Drops the packets of `channel`: they answer a transaction the host abandoned.
    mutating func removeAll(onChannel channel: UInt32) {
        guard head < packets.count else { return }
        packets = packets[head...].filter { CTAPHID.channel(of: $0) != channel }
        head = 0
    }

    mutating func removeAll() {
        packets.removeAll()
        head = 0
    }
}
