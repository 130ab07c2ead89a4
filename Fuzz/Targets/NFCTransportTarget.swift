import FIDO
import ISO7816
import Logging
import SmartCard
import Synchronization
import VirtualAuthenticator
import VirtualCard

extension FuzzTarget {
    /// The PC/SC transport's client side, fed a card's answers: libfido2
    /// opens the "key" (SELECT, INIT synthesised, GetInfo), asks for an
    /// assertion and makes a credential (a command chain), while the card
    /// answers with the input's response APDUs in order — status words,
    /// `61xx` chains, `9100` keepalives, CTAP answers and all. When the input
    /// runs out the card is gone.
    static let nfcTransport = FuzzTarget(
        name: "nfc-transport",
        summary: "response APDUs, each a 2-byte big-endian length and the APDU, as a FIDO card's answers to libfido2 over the PC/SC transport",
        maximumLength: 16384,
        seeds: {
            let answers = try NFCTransportFuzzing.recordedSession()
            let lengthPrefixed = NFCTransportFuzzing.lengthPrefixed
            var seeds = [Seed("applet-session", lengthPrefixed(answers))]
            // GetInfo's answer behind two 9100 keepalives, then in 61xx parts.
            if answers.count >= 2 {
                let info = answers[1].dropLast(2)
                let first = Array(info.prefix(40)), rest = Array(info.dropFirst(40))
                seeds.append(Seed("keepalive-then-chained-info", lengthPrefixed(
                    [answers[0], [0x02, 0x91, 0x00], [0x01, 0x91, 0x00], first + [0x61, UInt8(min(rest.count, 255))], rest + [0x90, 0x00]]
                    + answers.dropFirst(2))))
            }
            // A FIDO applet that refuses NFCCTAP_MSG; and one that answers 9000 with nothing.
            seeds.append(Seed("instruction-not-supported", lengthPrefixed([answers[0], [0x6D, 0x00]])))
            seeds.append(Seed("empty-answer", lengthPrefixed([answers[0], [0x90, 0x00]])))
            return seeds
        },
        run: { bytes in
            var answers: [[UInt8]] = []
            var offset = 0
            while offset + 2 <= bytes.count {
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                offset += 2
                answers.append(Array(bytes[offset..<min(offset + length, bytes.count)]))
                offset += answers[answers.count - 1].count
            }
            let card = ReplayedCard(answers: answers)
            NFCTransportFuzzing.drive(card)
            for command in card.commands {
                // What the transport sends is always a well-formed short APDU.
                try expect(command.count <= 4 + 1 + 255 + 1, "a command APDU of \(command.count) bytes")
                try expect((try? CommandAPDU(parsing: command)) != nil, "a command APDU that does not parse")
            }
        })
}

/// A card that answers with a script, then is gone; it notes what it was sent.
final class ReplayedCard: CardChannel, @unchecked Sendable {
    let readerName = "fuzzed card"
    private let state: Mutex<(answers: [[UInt8]], next: Int, commands: [[UInt8]])>

    init(answers: [[UInt8]]) { state = Mutex((answers, 0, [])) }

    var commands: [[UInt8]] { state.withLock { $0.commands } }

    func transmitRaw(_ command: [UInt8]) throws(SmartCardError) -> [UInt8] {
        let answer: [UInt8]? = state.withLock { state in
            state.commands.append(command)
            guard state.next < state.answers.count else { return nil }
            defer { state.next += 1 }
            return state.answers[state.next]
        }
        guard let answer else { throw .cardRemoved(reader: readerName) }
        return answer
    }
}

/// A card that answers from a real FIDO2 applet and writes down its answers.
private final class RecordingCard: CardChannel, @unchecked Sendable {
    let readerName = "recording card"
    let card: VirtualCard
    private let recorded = Mutex<[[UInt8]]>([])

    init(card: VirtualCard) { self.card = card }

    var answers: [[UInt8]] { recorded.withLock { $0 } }

    func transmitRaw(_ command: [UInt8]) throws(SmartCardError) -> [UInt8] {
        let answer = card.process(apdu: command)
        recorded.withLock { $0.append(answer) }
        return answer
    }
}

enum NFCTransportFuzzing {
    static let descriptor = DeviceDescriptor(path: "pcsc:fuzzed", manufacturer: "", product: "fuzzed card",
                                             vendorId: 0, productId: 0, isSoftware: false, transport: .nfc)
    /// Never waits between polls: the answers are all there.
    static let polling = KeepalivePolling(first: .zero, maximum: .zero, cancelGrace: .zero)

    /// Opens the card through libfido2, asks for an assertion with the
    /// discoverable credentials of example.org, then makes a credential with
    /// an exclude list long enough for a command chain; every failure is an answer too.
    static func drive(_ channel: any CardChannel & Sendable) {
        guard let device = try? FIDODevice.open(.cardChannel(channel, descriptor, polling: polling)) else { return }
        _ = try? device.getAssertion(GetAssertionRequest(rpId: "example.org", clientDataHash: [UInt8](repeating: 7, count: 32)),
                                     timeout: .seconds(5))
        let ids = (0..<5).map { index in [UInt8](repeating: UInt8(index), count: 64) }
        _ = try? device.makeCredential(MakeCredentialRequest(clientDataHash: [UInt8](repeating: 8, count: 32), rpId: "example.org",
                                                             userId: [2], userName: "bob", excludeCredentialIds: ids,
                                                             hmacSecret: true),
                                       timeout: .seconds(5))
    }

    /// The answers of the virtual card's FIDO2 applet to `drive`, once it
    /// holds a discoverable credential for example.org.
    static func recordedSession() throws -> [[UInt8]] {
        let quiet = Logger(label: "passkey-fuzz") { _ in SwiftLogNoOpLogHandler() }
        let applet = try FIDO2Applet(memory: CardMemory(file: nil), logger: quiet)
        let card = VirtualCard(applets: [applet], logger: quiet)
        let setup = try FIDODevice.open(.cardChannel(RecordingCard(card: card), descriptor, polling: polling))
        _ = try setup.makeCredential(MakeCredentialRequest(clientDataHash: [UInt8](repeating: 9, count: 32), rpId: "example.org",
                                                           userId: [1], userName: "alice", residentKey: true))
        let recording = RecordingCard(card: card)
        drive(recording)
        return recording.answers
    }

    static func lengthPrefixed(_ answers: [[UInt8]]) -> [UInt8] {
        answers.flatMap { [UInt8($0.count >> 8), UInt8($0.count & 0xFF)] + $0 }
    }
}
