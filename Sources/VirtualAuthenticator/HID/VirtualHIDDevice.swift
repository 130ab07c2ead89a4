import Dispatch

/// A CTAPHID device (CTAP 2.1 §11.2) in front of a `CTAP2Authenticator`:
/// 64-byte packets in, 64-byte packets out, as a USB security key's HID
/// interface carries them. It is what libfido2's custom I/O callbacks talk to:
///
/// - `write(_:)` takes one packet the host sends (libfido2 passes 65 bytes;
///   strip its leading report-ID byte).
/// - `read(timeoutMilliseconds:)` returns the next packet for the host, or nil
///   when none arrives in time (negative = wait forever).
///
/// Thread-safe. libfido2 calls write then read on one thread, while
/// `fido_dev_cancel` writes CANCEL from another thread during the read.
/// A request that cannot wait (policies `approve`/`deny`) is processed inline
/// in `write`, with no thread hand-off; one that may wait for the simulated
/// user runs on a worker so KEEPALIVE(UPNEEDED) flows every 100 ms and
/// CANCEL is heard. One host at a time: packets for every channel share
/// one output queue, as on a real HID interface.
public final class VirtualHIDDevice: @unchecked Sendable {
    public static let packetSize = CTAPHID.packetSize
    /// Channels remembered at once; the oldest allocation is forgotten beyond this.
    static let maximumChannels = 1024
    /// Keepalives are dropped rather than queued beyond this many unread packets.
    static let maximumQueuedPackets = 512

    public let authenticator: CTAP2Authenticator
    private let messageTimeoutNanoseconds: UInt64
    private let lock = ConditionLock()

    // All below guarded by `lock`.
    private var allocatedChannels = Set<UInt32>()
    private var allocationOrder: [UInt32] = []
    private var nextChannel: UInt32
    private var partial: PartialMessage?
    private var busy: BusyRequest?
    private var outbox: [[UInt8]] = []
    private var outboxHead = 0
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

    /// Receives one packet from the host. Shorter packets are zero-padded and
    /// bytes beyond 64 ignored, as a HID report of fixed size would be.
    public func write(_ packet: [UInt8]) {
        var packet = packet
        if packet.count != CTAPHID.packetSize {
            packet = Array(packet.prefix(CTAPHID.packetSize))
            packet += [UInt8](repeating: 0, count: CTAPHID.packetSize - packet.count)
        }
        let job = lock.withLock { () -> Job? in receive(packet) }
        if let job { run(job) }
    }

    /// The next packet for the host: exactly 64 bytes, or nil after
    /// `timeoutMilliseconds` (0 = do not wait, negative = wait forever).
    public func read(timeoutMilliseconds: Int) -> [UInt8]? {
        let deadline = timeoutMilliseconds < 0 ? nil : MonotonicClock.deadline(afterMilliseconds: timeoutMilliseconds)
        return lock.withLock { () -> [UInt8]? in
            while true {
                expireStalePartialMessage()
                if let packet = dequeue() { return packet }
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

    /// The host closed its handle: cancels a request in flight and drops the
    /// queued and half-received traffic. The device stays usable.
    public func close() {
        lock.withLock {
            busy?.control.cancel()
            busy = nil
            partial = nil
            outbox.removeAll()
            outboxHead = 0
        }
        lock.broadcast()
    }

    // MARK: Receiving (all under `lock`)

    private func receive(_ packet: [UInt8]) -> Job? {
        expireStalePartialMessage()
        let channel = CTAPHID.channel(of: packet)
        guard packet[4] & CTAPHID.initFlag != 0 else { return receiveContinuation(packet, channel: channel) }
        let commandByte = packet[4] & ~CTAPHID.initFlag
        let length = Int(packet[5]) << 8 | Int(packet[6])

        // Channel rules (§11.2.3): 0 is never valid; broadcast is for INIT only.
        if channel == 0 { sendError(.invalidChannel, on: channel); return nil }
        if channel == CTAPHID.broadcastChannel {
            guard commandByte == CTAPHID.Command.initialize.rawValue else {
                sendError(.invalidChannel, on: channel); return nil
            }
        } else if !allocatedChannels.contains(channel) {
            sendError(.invalidChannel, on: channel); return nil
        }

        switch CTAPHID.Command(rawValue: commandByte) {
        case .initialize:
            initialize(packet, channel: channel, length: length)
            return nil
        case .cancel:
            // Aborts this channel's waiting request; never answered (§11.2.9.1.5).
            if let busy, busy.channel == channel { busy.control.cancel() }
            return nil
        default:
            break
        }

        if busy != nil { sendError(.channelBusy, on: channel); return nil }
        if let partial {
            guard partial.channel == channel else { sendError(.channelBusy, on: channel); return nil }
            // A new message started before the last one was complete.
            self.partial = nil
            sendError(.invalidSequence, on: channel)
            return nil
        }
        guard length <= CTAPHID.maximumMessageSize else { sendError(.invalidLength, on: channel); return nil }
        // A new transaction: anything still queued for this channel answers an older one.
        discardQueuedPackets(for: channel)
        let message = PartialMessage(initializationPacket: packet, channel: channel, command: commandByte,
                                     length: length, now: MonotonicClock.now())
        if message.isComplete { return dispatch(message) }
        partial = message
        return nil
    }

    private func receiveContinuation(_ packet: [UInt8], channel: UInt32) -> Job? {
        guard var message = partial, message.channel == channel else {
            // A continuation with no message in progress is ignored (§11.2.4);
            // one from another channel while a message is in progress is told to wait.
            if partial != nil && allocatedChannels.contains(channel) { sendError(.channelBusy, on: channel) }
            return nil
        }
        guard packet[4] == message.nextSequence else {
            partial = nil
            sendError(.invalidSequence, on: channel)
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
    private func initialize(_ packet: [UInt8], channel: UInt32, length: Int) {
        guard length == 8 else { sendError(.invalidLength, on: channel); return }
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
        enqueue(CTAPHID.packets(channel: channel, command: .initialize, payload: payload))
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
            enqueue(CTAPHID.packets(channel: message.channel, command: .ping, payload: message.payload))
            return nil
        case .wink:
            enqueue(CTAPHID.packets(channel: message.channel, command: .wink, payload: []))
            return nil
        case .cbor:
            guard !message.payload.isEmpty else { sendError(.invalidLength, on: message.channel); return nil }
            requestCounter += 1
            let id = requestCounter
            let channel = message.channel
            let control = RequestControl { [weak self] status in self?.keepalive(status, channel: channel, request: id) }
            busy = BusyRequest(id: id, channel: channel, control: control)
            let job = Job(id: id, channel: channel, request: message.payload, control: control,
                          policies: authenticator.currentPolicies)
            guard job.policies.mayWait else { return job }  // inline, on the writer's thread
            DispatchQueue.global(qos: .userInitiated).async { self.run(job) }
            return nil
        default:
            // MSG (U2F), LOCK and anything unknown: not offered by this device.
            sendError(.invalidCommand, on: message.channel)
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
            enqueue(CTAPHID.packets(channel: job.channel, command: .cbor, payload: response))
        }
    }

    private func keepalive(_ status: KeepaliveStatus, channel: UInt32, request: UInt64) {
        lock.withLock {
            guard busy?.id == request, outbox.count - outboxHead < Self.maximumQueuedPackets else { return }
            enqueue(CTAPHID.packets(channel: channel, command: .keepalive, payload: [status.rawValue]))
        }
    }

    // MARK: Output queue (under `lock`)

    private func sendError(_ code: CTAPHID.ErrorCode, on channel: UInt32) {
        enqueue(CTAPHID.packets(channel: channel, command: .error, payload: [code.rawValue]))
    }

    private func enqueue(_ packets: [[UInt8]]) {
        outbox += packets
        lock.broadcast()
    }

    private func dequeue() -> [UInt8]? {
        guard outboxHead < outbox.count else { return nil }
        let packet = outbox[outboxHead]
        outboxHead += 1
        if outboxHead == outbox.count {
            outbox.removeAll(keepingCapacity: true)
            outboxHead = 0
        } else if outboxHead >= 64 && outboxHead * 2 >= outbox.count {
            outbox.removeFirst(outboxHead)
            outboxHead = 0
        }
        return packet
    }

    private func discardQueuedPackets(for channel: UInt32) {
        guard outboxHead < outbox.count else { return }
        outbox = outbox[outboxHead...].filter { CTAPHID.channel(of: $0) != channel }
        outboxHead = 0
    }

    /// A message whose next packet is overdue is dropped with ERR_MSG_TIMEOUT.
    private func expireStalePartialMessage() {
        guard let partial, MonotonicClock.now() &- partial.lastPacketAt > messageTimeoutNanoseconds else { return }
        self.partial = nil
        sendError(.messageTimeout, on: partial.channel)
    }
}

/// The request a channel is running.
private struct BusyRequest {
    let id: UInt64
    let channel: UInt32
    let control: RequestControl
}

/// A CTAP2 request ready to run, inline or on a worker.
private struct Job: Sendable {
    let id: UInt64
    let channel: UInt32
    let request: [UInt8]
    let control: RequestControl
    let policies: UserActionPolicies
}
