import PacketDevice

/// A CTAPHID message being received: the initialization packet gave its
/// channel, command and length; continuation packets fill in the rest.
struct PartialMessage {
    /// The host connection sending it: the one any error about it goes to.
    let connection: UInt64
    let channel: UInt32
    let command: UInt8
    let length: Int
    private(set) var payload: [UInt8]
    private(set) var nextSequence: UInt8 = 0
    private(set) var lastPacketAt: UInt64

    /// From an initialization packet (64 bytes, already checked).
    init(initializationPacket packet: [UInt8], connection: UInt64, channel: UInt32, command: UInt8, length: Int,
         now: UInt64) {
        self.connection = connection
        self.channel = channel
        self.command = command
        self.length = length
        payload = []
        payload.reserveCapacity(length)
        let count = min(length, CTAPHID.initPayloadSize)
        payload += packet[CTAPHID.initHeaderSize..<(CTAPHID.initHeaderSize + count)]
        lastPacketAt = now
    }

    var isComplete: Bool { payload.count >= length }

    /// Appends a continuation packet whose sequence number was checked by the caller.
    mutating func append(continuationPacket packet: [UInt8], now: UInt64) {
        let count = min(length - payload.count, CTAPHID.continuationPayloadSize)
        payload += packet[CTAPHID.continuationHeaderSize..<(CTAPHID.continuationHeaderSize + count)]
        nextSequence &+= 1
        lastPacketAt = now
    }
}
