import ISO7816
import SmartCard
import Testing
import TestSupport

/// What an answer of nothing means: pcsc-lite returns success with 0 bytes
/// when the card goes while the reader waits for its answer (vpcd when the
/// card's process dies mid-command — the NFC removal test in PCSCTests+NFC
/// met it in 5 of 12 runs as "malformed response").
@Suite(.ownThreads) struct EmptyAnswerTests {
    @Test("0 bytes instead of a response APDU is the card leaving the reader")
    func emptyAnswerIsTheCardRemoved() {
        let channel = ScriptedCardChannel(answers: [[]])
        #expect(throws: SmartCardError.cardRemoved(reader: "scripted card")) {
            try channel.transmit(CommandAPDU(cla: 0x80, ins: 0x10, p1: 0, p2: 0, data: [0x04]))
        }
    }

    @Test("0 bytes answering a GET RESPONSE is the card leaving too")
    func emptyAnswerWhileChainingIsTheCardRemoved() {
        let channel = ScriptedCardChannel(answers: [[0x01, 0x61, 0x02], []])
        #expect(throws: SmartCardError.cardRemoved(reader: "scripted card")) {
            try channel.transmit(CommandAPDU(cla: 0x80, ins: 0x10, p1: 0, p2: 0, data: [0x04]))
        }
    }

    @Test("one byte is no status word: still a malformed response")
    func oneByteIsMalformed() {
        let channel = ScriptedCardChannel(answers: [[0x90]])
        do {
            _ = try channel.transmit(CommandAPDU(cla: 0x80, ins: 0x10, p1: 0, p2: 0, data: [0x04]))
            Issue.record("one byte was taken for a response")
        } catch {
            guard case .malformedResponse = error else { Issue.record("\(error)"); return }
        }
    }
}
