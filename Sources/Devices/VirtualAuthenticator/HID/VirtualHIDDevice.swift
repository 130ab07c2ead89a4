import Dispatch
import Locking
import PacketDevice

/// A CTAPHID device (CTAP 2.1 §11.2) in front of a `CTAP2Authenticator`:
/// 64-byte packets in, 64-byte packets out, as a USB security key's HID
/// interface carries them. It is what libfido2's custom I/O callbacks talk to:
///
/// - `openConnection()` gives one host handle, as opening a hidraw node does:
///   its `write` takes the packets that host sends and its `read` returns the
///   answers to them. Closing it abandons only its own transaction.
/// - `write(_:)`, `read(timeoutMilliseconds:)` and `close()` on the device
///   itself are one built-in connection, for hosts that need only one.
///
/// Thread-safe. libfido2 calls write then read on one thread, while
/// `fido_dev_cancel` writes CANCEL from another thread during the read.
/// A request that cannot wait (policies `approve`/`deny`) is processed inline
/// in `write`, with no thread hand-off; one that may wait for the simulated
/// user runs on a worker so KEEPALIVE(UPNEEDED) flows every 100 ms and
/// CANCEL is heard. One request at a time across all connections; another
/// connection's request meanwhile is answered ERR_CHANNEL_BUSY.
public final class VirtualHIDDevice: @unchecked Sendable {
    public static let packetSize = CTAPHID.packetSize
    /// Channels remembered at once; the oldest allocation is forgotten beyond this.
    static let maximumChannels = 1024
    /// Keepalives are dropped rather than queued beyond this many unread packets.
    static let maximumQueuedPackets = 512
    /// The connection behind the device's own `write`, `read` and `close`.
    static let builtInConnection: UInt64 = 0

    public let authenticator: CTAP2Authenticator
    private let messageTimeoutNanoseconds: UInt64
    private let lock = ConditionLock()

    // All below guarded by `lock`.
    private var allocatedChannels = Set<UInt32>()
    private var allocationOrder: [UInt32] = []
    private var nextChannel: UInt32
    private var partial: PartialMessage?
    private var busy: BusyRequest?
    /// Each open connection's unread packets; a closed connection has none.
    private var queues: [UInt64: PacketQueue] = [builtInConnection: PacketQueue()]
    private var nextConnection: UInt64 = builtInConnection + 1
    private var requestCounter: UInt64 = 0

    /// `messageTimeoutMilliseconds`: how long the device waits for the next
    /// packet of a message before answering ERR_MSG_TIMEOUT and dropping it.
    public init(authenticator: CTAP2Authenticator, messageTimeoutMilliseconds: Int = 1000) {
        self.authenticator = authenticator
        messageTimeoutNanoseconds = MonotonicClock.nanoseconds(milliseconds: max(1, messageTimeoutMilliseconds))
        // A random start, so channel ids of an earlier device instance are not valid here.
        var generator = SystemRandomNumberGenerator()
        nextChannel = UInt32.random(in: 1...0x7FFF_FFFF, using: &generator)
    }

    /// A device around a new authenticator built from `configuration`.
    public convenience init(configuration: VirtualAuthenticatorConfiguration,
                            messageTimeoutMilliseconds: Int = 1000) throws(VirtualAuthenticatorError) {
        self.init(authenticator: try CTAP2Authenticator(configuration: configuration),
                  messageTimeoutMilliseconds: messageTimeoutMilliseconds)
    }

    // MARK: Host interface

    /// A new host handle (see `VirtualHIDConnection`).
    public func openConnection() -> VirtualHIDConnection {
        let id = lock.withLock { () -> UInt64 in
            let id = nextConnection
            nextConnection += 1
            queues[id] = PacketQueue()
            return id
        }
        return VirtualHIDConnection(device: self, id: id)
    }

    /// Receives one packet from the host on the built-in connection. Shorter
    /// packets are zero-padded and bytes beyond 64 ignored, as a HID report of
    /// fixed size would be.
    public func write(_ packet: [UInt8]) {
        write(packet, from: Self.builtInConnection)
    }

    /// The next packet for the built-in connection: exactly 64 bytes, or nil
    /// after `timeoutMilliseconds` (negative: no limit) — or at once when no
    /// answer can come any more (see `VirtualHIDConnection.read`).
    public func read(timeoutMilliseconds: Int) -> [UInt8]? {
        read(connection: Self.builtInConnection, timeoutMilliseconds: timeoutMilliseconds)
    }

    func write(_ packet: [UInt8], from connection: UInt64) {
        var packet = packet
        if packet.count != CTAPHID.packetSize {
            packet = Array(packet.prefix(CTAPHID.packetSize))
            packet += [UInt8](repeating: 0, count: CTAPHID.packetSize - packet.count)
        }
        let job = lock.withLock { () -> Job? in
            guard queues[connection] != nil else { return nil }  // closed: nobody could read an answer
            return receive(packet, from: connection)
        }
        if let job { run(job) }
    }

    func read(connection: UInt64, timeoutMilliseconds: Int) -> [UInt8]? {
        let deadline = timeoutMilliseconds < 0 ? nil : MonotonicClock.deadline(afterMilliseconds: timeoutMilliseconds)
        return lock.withLock { () -> [UInt8]? in
            while true {
                expireStalePartialMessage()
                guard queues[connection] != nil else { return nil }
                if let packet = queues[connection]?.popFirst() { return packet }
                // Nothing queued and nothing running for this connection: no answer
                // can come (the host writes, then reads), so waiting out the
                // timeout, or forever with -1, would only stall the host.
                if !mayAnswer(connection) { return nil }
                let now = MonotonicClock.now()
                if let deadline, now >= deadline { return nil }
                var wake = deadline
                if let partial {
                    let expiry = partial.lastPacketAt &+ messageTimeoutNanoseconds
                    wake = min(wake ?? expiry, expiry)
                }
                lock.wait(until: wake)
            }
        }
    }

    /// `read` into a caller's buffer (at least 64 bytes), sparing a copy in a C callback.
    /// Returns false on timeout or a buffer that is too small.
    public func read(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int) -> Bool {
        guard buffer.count >= CTAPHID.packetSize, let packet = read(timeoutMilliseconds: timeoutMilliseconds) else {
            return false
        }
        buffer.copyBytes(from: packet)
        return true
    }

    /// The host closed the built-in connection: cancels its request in flight
    /// and drops its queued and half-received traffic. The device, and the
    /// built-in connection, stay usable.
    public func close() {
        close(connection: Self.builtInConnection, forget: false)
    }

    /// Abandons `connection`'s transaction and traffic; `forget` ends the
    /// connection for good. Other connections' requests are left alone.
    func close(connection: UInt64, forget: Bool) {
        lock.withLock {
            if let busy, busy.connection == connection {
                busy.control.cancel()
                self.busy = nil
            }
            if partial?.connection == connection { partial = nil }
            if forget {
                queues[connection] = nil
            } else {
                queues[connection]?.removeAll()
            }
        }
        lock.broadcast()
    }

    /// Whether something may still be queued for `connection`: its request
    /// runs, or its half-sent message will end in ERR_MSG_TIMEOUT. (Under `lock`.)
    private func mayAnswer(_ connection: UInt64) -> Bool {
        busy?.connection == connection || partial?.connection == connection
    }

    // MARK: Receiving (all under `lock`)

    private func receive(_ packet: [UInt8], from connection: UInt64) -> Job? {
        expireStalePartialMessage()
        let channel = CTAPHID.channel(of: packet)
        guard packet[4] & CTAPHID.initFlag != 0 else {
            return receiveContinuation(packet, channel: channel, from: connection)
        }
        let commandByte = packet[4] & ~CTAPHID.initFlag
        let length = Int(packet[5]) << 8 | Int(packet[6])

        // Channel rules (§11.2.3): 0 is never valid; broadcast is for INIT only.
        if channel == 0 { sendError(.invalidChannel, on: channel, to: connection); return nil }
        if channel == CTAPHID.broadcastChannel {
            guard commandByte == CTAPHID.Command.initialize.rawValue else {
                sendError(.invalidChannel, on: channel, to: connection); return nil
            }
        } else if !allocatedChannels.contains(channel) {
            sendError(.invalidChannel, on: channel, to: connection); return nil
        }

        switch CTAPHID.Command(rawValue: commandByte) {
        case .initialize:
            initialize(packet, channel: channel, length: length, from: connection)
            return nil
        case .cancel:
            // Aborts this channel's waiting request; never answered (§11.2.9.1.5).
            if let busy, busy.channel == channel { busy.control.cancel() }
            return nil
        default:
            break
        }

        if busy != nil { sendError(.channelBusy, on: channel, to: connection); return nil }
        if let partial {
            guard partial.channel == channel, partial.connection == connection else { sendError(.channelBusy, on: channel, to: connection); return nil }
            // A new message started before the last one was complete.
            self.partial = nil
            sendError(.invalidSequence, on: channel, to: connection)
            return nil
        }
        guard length <= CTAPHID.maximumMessageSize else { sendError(.invalidLength, on: channel, to: connection); return nil }
        // A new transaction: anything still queued for this channel answers an older one.
        discardQueuedPackets(for: channel)
        let message = PartialMessage(initializationPacket: packet, connection: connection, channel: channel,
                                     command: commandByte, length: length, now: MonotonicClock.now())
        if message.isComplete { return dispatch(message) }
        partial = message
        return nil
    }

    private func receiveContinuation(_ packet: [UInt8], channel: UInt32, from connection: UInt64) -> Job? {
        guard var message = partial, message.channel == channel, message.connection == connection else {
            // A continuation with no message in progress is ignored (§11.2.4);
            // one from another channel while a message is in progress is told to wait.
            if partial != nil && allocatedChannels.contains(channel) { sendError(.channelBusy, on: channel, to: connection) }
            return nil
        }
        guard packet[4] == message.nextSequence else {
            partial = nil
            sendError(.invalidSequence, on: channel, to: connection)
            return nil
        }
        message.append(continuationPacket: packet, now: MonotonicClock.now())
        guard message.isComplete else { partial = message; return nil }
        partial = nil
        return dispatch(message)
    }

    /// CTAPHID_INIT (§11.2.9.1.3): on the broadcast channel it allocates a
    /// channel; on an allocated channel it resynchronises it, abandoning its
    /// transaction.
    private func initialize(_ packet: [UInt8], channel: UInt32, length: Int, from connection: UInt64) {
        guard length == 8 else { sendError(.invalidLength, on: channel, to: connection); return }
        let nonce = Array(packet[CTAPHID.initHeaderSize..<(CTAPHID.initHeaderSize + 8)])
        let assigned: UInt32
        if channel == CTAPHID.broadcastChannel {
            assigned = allocateChannel()
        } else {
            assigned = channel
            if partial?.channel == channel { partial = nil }
            if let busy, busy.channel == channel {
                busy.control.cancel()
                self.busy = nil  // its response, when it comes, is dropped
            }
            discardQueuedPackets(for: channel)
        }
        let version = CTAPHID.deviceVersion
        let payload = nonce + CTAPHID.channelBytes(assigned)
            + [CTAPHID.protocolVersion, version.major, version.minor, version.build, CTAPHID.capabilities]
        send(CTAPHID.packets(channel: channel, command: .initialize, payload: payload), to: connection)
    }

    private func allocateChannel() -> UInt32 {
        var channel = nextChannel
        while channel == 0 || channel == CTAPHID.broadcastChannel || allocatedChannels.contains(channel) {
            channel &+= 1
        }
        nextChannel = channel &+ 1
        allocatedChannels.insert(channel)
        allocationOrder.append(channel)
        if allocationOrder.count > Self.maximumChannels {
            allocatedChannels.remove(allocationOrder.removeFirst())
        }
        return channel
    }

    /// A complete message: answered here (PING, WINK, errors) or turned into a CTAP2 job.
    private func dispatch(_ message: PartialMessage) -> Job? {
        switch CTAPHID.Command(rawValue: message.command) {
        case .ping:
            send(CTAPHID.packets(channel: message.channel, command: .ping, payload: message.payload), to: message.connection)
            return nil
        case .wink:
            send(CTAPHID.packets(channel: message.channel, command: .wink, payload: []), to: message.connection)
            return nil
        case .cbor:
            guard !message.payload.isEmpty else { sendError(.invalidLength, on: message.channel, to: message.connection); return nil }
            requestCounter += 1
            let id = requestCounter
            let channel = message.channel
            let control = RequestControl { [weak self] status in self?.keepalive(status, channel: channel, request: id) }
            busy = BusyRequest(id: id, connection: message.connection, channel: channel, control: control)
            let job = Job(id: id, connection: message.connection, channel: channel, request: message.payload,
                          control: control, policies: authenticator.currentPolicies)
            guard job.policies.mayWait else { return job }  // inline, on the writer's thread
            DispatchQueue.global(qos: .userInitiated).async { self.run(job) }
            return nil
        default:
            // MSG (U2F), LOCK and anything unknown: not offered by this device.
            sendError(.invalidCommand, on: message.channel, to: message.connection)
            return nil
        }
    }

    // MARK: Running requests

    private func run(_ job: Job) {
        var response = authenticator.process(job.request, control: job.control, policies: job.policies)
        if response.count > CTAPHID.maximumMessageSize { response = [CTAPStatus.other.rawValue] }
        lock.withLock {
            // Dropped if the channel was resynchronised or the host closed meanwhile.
            guard busy?.id == job.id else { return }
            busy = nil
            send(CTAPHID.packets(channel: job.channel, command: .cbor, payload: response), to: job.connection)
        }
    }

    private func keepalive(_ status: KeepaliveStatus, channel: UInt32, request: UInt64) {
        lock.withLock {
            guard let busy, busy.id == request,
                  let queued = queues[busy.connection]?.count, queued < Self.maximumQueuedPackets else { return }
            send(CTAPHID.packets(channel: channel, command: .keepalive, payload: [status.rawValue]), to: busy.connection)
        }
    }

    // MARK: Output queues (under `lock`)

    private func sendError(_ code: CTAPHID.ErrorCode, on channel: UInt32, to connection: UInt64) {
        send(CTAPHID.packets(channel: channel, command: .error, payload: [code.rawValue]), to: connection)
    }

    /// Queues packets for `connection`; a closed connection's are dropped.
    private func send(_ packets: [[UInt8]], to connection: UInt64) {
        guard queues[connection] != nil else { return }
        queues[connection]?.append(contentsOf: packets)
        lock.broadcast()
    }

    private func discardQueuedPackets(for channel: UInt32) {
        for connection in queues.keys { queues[connection]?.removeAll(onChannel: channel) }
    }

    /// A message whose next packet is overdue is dropped with ERR_MSG_TIMEOUT.
    private func expireStalePartialMessage() {
        guard let partial, MonotonicClock.now() &- partial.lastPacketAt > messageTimeoutNanoseconds else { return }
        self.partial = nil
        sendError(.messageTimeout, on: partial.channel, to: partial.connection)
    }
}

/// The request a channel is running.
private struct BusyRequest {
    let id: UInt64
    let connection: UInt64
    let channel: UInt32
    let control: RequestControl
}

/// A CTAP2 request ready to run, inline or on a worker.
private struct Job: Sendable {
    let id: UInt64
    let connection: UInt64
    let channel: UInt32
    let request: [UInt8]
    let control: RequestControl
    let policies: UserActionPolicies
}
