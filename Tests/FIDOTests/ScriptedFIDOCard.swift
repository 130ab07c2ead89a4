import FIDO
import ISO7816
import SmartCard
import Locking
import VirtualAuthenticator

/// A FIDO applet on a card, in this process, answering the way a card may —
/// to drive the PC/SC transport's client side through libfido2: command
/// chains reassembled, answers split into `partSize`-byte parts behind `61xx`,
/// `keepalives` × `9100` (UPNEEDED) before each answer, a cancel honoured or
/// ignored, and the card "removed" after a number of APDUs. The CTAP2 answers
/// come from the software authenticator's engine.
final class ScriptedFIDOCard: CardChannel, @unchecked Sendable {
    struct Behaviour {
        var selectAnswer: ResponseAPDU = ResponseAPDU(data: Array("FIDO_2_0".utf8), status: .success)
        var partSize = 256
        var keepalives = 0
        /// Keep answering `9100` until a cancel comes (a person who never touches).
        var waitForever = false
        var honoursCancel = true
        /// The card leaves the reader once this many APDUs were answered.
        var removedAfter: Int?
        /// Replaces the CTAP answer (status byte and CBOR) to every message.
        var answerOverride: [UInt8]?
    }

    let readerName = "scripted FIDO card"
    let authenticator: CTAP2Authenticator
    private struct State {
        var behaviour: Behaviour
        var sent: [[UInt8]] = []
        var chain: [UInt8] = []
        var pending: [UInt8] = []
        var keepalivesLeft = 0
        var answered = 0
    }
    private let state: Locked<State>

    init(_ behaviour: Behaviour = Behaviour(), authenticator: CTAP2Authenticator? = nil) throws {
        self.authenticator = try authenticator ?? CTAP2Authenticator(configuration: VirtualAuthenticatorConfiguration())
        state = Locked(State(behaviour: behaviour))
    }

    var sentCommands: [[UInt8]] { state.withLock { $0.sent } }

    func change(_ body: (inout Behaviour) -> Void) { state.withLock { body(&$0.behaviour) } }

    func transmitRaw(_ bytes: [UInt8]) throws(SmartCardError) -> [UInt8] {
        let command: CommandAPDU
        do { command = try CommandAPDU(parsing: bytes) } catch { return StatusWord.wrongLength.bytes }
        let answer: ResponseAPDU? = state.withLock { state in
            state.sent.append(bytes)
            if let limit = state.behaviour.removedAfter, state.answered >= limit { return nil }
            state.answered += 1
            return respond(to: command, &state)
        }
        guard let answer else { throw .cardRemoved(reader: readerName) }
        return answer.encoded
    }

    private func respond(to command: CommandAPDU,
                         _ state: inout State) -> ResponseAPDU {
        switch (command.cla & ~0x10, command.ins) {
        case (0x00, 0xA4):
            return state.behaviour.selectAnswer
        case (0x80, 0x10):
            state.chain += command.data
            if command.isChainedBlock { return .success }
            let request = state.chain
            state.chain = []
            state.pending = state.behaviour.answerOverride ?? authenticator.process(request)
            state.keepalivesLeft = state.behaviour.keepalives
            return next(&state)
        case (0x80, 0x11):
            if command.p1 == 0x11 && state.behaviour.honoursCancel {
                state.keepalivesLeft = 0
                state.behaviour.waitForever = false
                state.pending = [0x2D]
            }
            return next(&state)
        case (0x00, 0xC0):
            return part(&state)
        default:
            return .status(.instructionNotSupported)
        }
    }

    private func next(_ state: inout State) -> ResponseAPDU {
        if state.behaviour.waitForever { return ResponseAPDU(data: [0x02], status: StatusWord(0x9100)) }
        if state.keepalivesLeft > 0 {
            state.keepalivesLeft -= 1
            return ResponseAPDU(data: [0x02], status: StatusWord(0x9100))
        }
        return part(&state)
    }

    private func part(_ state: inout State) -> ResponseAPDU {
        let part = Array(state.pending.prefix(state.behaviour.partSize))
        state.pending.removeFirst(part.count)
        return ResponseAPDU(data: part, status: state.pending.isEmpty ? .success : .moreData(state.pending.count))
    }
}
