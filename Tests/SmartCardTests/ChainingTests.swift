import ISO7816
import PIV
import SmartCard
import Testing
import TestSupport
import VirtualCard

@Suite("Command and response chaining", .ownThreads)
struct ChainingTests {
    @Test("a long command goes out as 255-byte blocks with CLA 0x10 on all but the last")
    func commandChaining() throws {
        let channel = ScriptedCardChannel(answers: [[0x90, 0x00], [0x90, 0x00], [0x90, 0x00]])
        let data = (0..<600).map { UInt8($0 & 0xFF) }
        let response = try channel.transmit(CommandAPDU(ins: 0xDB, p1: 0x3F, p2: 0xFF, data: data))
        #expect(response.status == .success)
        #expect(channel.sentCommands.count == 3)
        #expect(channel.sentCommands[0][0] == 0x10)
        #expect(channel.sentCommands[1][0] == 0x10)
        #expect(channel.sentCommands[2][0] == 0x00)
        #expect(channel.sentCommands[0][4] == 255)
        #expect(channel.sentCommands[2][4] == 90)
        let reassembled = channel.sentCommands.flatMap { $0[5..<(5 + Int($0[4]))] }
        #expect(reassembled == data)
    }

    @Test("a refused block stops the chain and its status comes back")
    func refusedBlock() throws {
        let channel = ScriptedCardChannel(answers: [[0x69, 0x82]])
        let response = try channel.transmit(CommandAPDU(ins: 0xDB, p1: 0x3F, p2: 0xFF, data: [UInt8](repeating: 1, count: 400)))
        #expect(response.status == .securityStatusNotSatisfied)
        #expect(channel.sentCommands.count == 1)
    }

    @Test("61xx is followed with GET RESPONSE until the card is done")
    func responseChaining() throws {
        let channel = ScriptedCardChannel(answers: [
            [UInt8](repeating: 1, count: 256) + [0x61, 0x00],
            [UInt8](repeating: 2, count: 256) + [0x61, 0x05],
            [UInt8](repeating: 3, count: 5) + [0x90, 0x00],
        ])
        let response = try channel.transmit(CommandAPDU(ins: 0xCB, p1: 0x3F, p2: 0xFF, data: [0x5C, 0x01, 0x7E],
                                                        expectedLength: 256))
        #expect(response.status == .success)
        #expect(response.data.count == 517)
        #expect(channel.sentCommands[1] == [0x00, 0xC0, 0x00, 0x00, 0x00])
        #expect(channel.sentCommands[2] == [0x00, 0xC0, 0x00, 0x00, 0x05])
    }

    @Test("6Cxx resends the command with the Le the card asked for")
    func wrongLength() throws {
        let channel = ScriptedCardChannel(answers: [[0x6C, 0x03], [0x05, 0x04, 0x03, 0x90, 0x00]])
        let response = try channel.transmit(CommandAPDU(ins: 0xFD, p1: 0, p2: 0, expectedLength: 1))
        #expect(response.data == [0x05, 0x04, 0x03])
        #expect(channel.sentCommands == [[0x00, 0xFD, 0x00, 0x00, 0x01], [0x00, 0xFD, 0x00, 0x00, 0x03]])
    }

    @Test("a card announcing more data but sending none is an error, not a loop")
    func emptyMoreData() {
        let channel = ScriptedCardChannel(answers: [[0x61, 0x10], [0x61, 0x10]])
        #expect(throws: SmartCardError.self) {
            try channel.transmit(CommandAPDU(ins: 0xCB, p1: 0x3F, p2: 0xFF, expectedLength: 256))
        }
    }

    @Test("the virtual card splits long answers into parts of at most 256 bytes and honours a short Le")
    func cardSideChaining() throws {
        let (card, _) = try TestCards.pivCard()
        let channel = InProcessCardChannel(card: card)
        let session = try PIVSession(channel: channel)
        try session.authenticate(with: .default)
        let object = (0..<1500).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try session.writeObject(PIVObjectID(rawValue: 0x5FC10D), value: object)
        #expect(try session.readObject(PIVObjectID(rawValue: 0x5FC10D)) == object)

        // The same object read with Le = 16: every part honours it.
        let select = card.process(.select(applicationIdentifier: PIVSession.applicationIdentifier))
        #expect(select.status == .success)
        var part = card.process(CommandAPDU(ins: 0xCB, p1: 0x3F, p2: 0xFF, data: [0x5C, 0x03, 0x5F, 0xC1, 0x0D],
                                            expectedLength: 16))
        var collected = part.data
        #expect(part.data.count == 16)
        while let more = part.status.moreDataAvailable {
            part = card.process(.getResponse(length: min(more, 16)))
            #expect(part.data.count <= 16)
            collected += part.data
        }
        #expect(part.status == .success)
        #expect(collected == BERTLV(tag: 0x53, value: object).encoded)
    }

    @Test("command chains are assembled by the card before the applet sees them")
    func cardAssemblesChains() throws {
        let (card, _) = try TestCards.pivCard()
        _ = card.process(.select(applicationIdentifier: [0xA0, 0x00, 0x00, 0x03, 0x08]))
        // PUT DATA without management-key authentication: the chain is
        // accepted block by block and refused as a whole.
        let first = card.process(CommandAPDU(cla: 0x10, ins: 0xDB, p1: 0x3F, p2: 0xFF, data: [0x5C, 0x03, 0x5F]))
        #expect(first.status == .success)
        let last = card.process(CommandAPDU(ins: 0xDB, p1: 0x3F, p2: 0xFF, data: [0xC1, 0x0D, 0x53, 0x01, 0x00]))
        #expect(last.status == .securityStatusNotSatisfied)
    }
}
