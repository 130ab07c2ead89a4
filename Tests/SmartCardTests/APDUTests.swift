import Hexadecimal
import ISO7816
import Testing
import TestSupport

@Suite("Command and response APDUs", .ownThreads)
struct APDUTests {
    @Test("case 1: header only")
    func caseOne() throws {
        let command = CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x00)
        #expect(try command.encoded() == [0x00, 0xA4, 0x04, 0x00])
        #expect(try CommandAPDU(parsing: [0x00, 0xA4, 0x04, 0x00]) == command)
    }

    @Test("case 2 short: Le 256 travels as 00")
    func caseTwoShort() throws {
        let command = CommandAPDU(ins: 0xFD, p1: 0, p2: 0, expectedLength: 256)
        #expect(try command.encoded() == [0x00, 0xFD, 0x00, 0x00, 0x00])
        let parsed = try CommandAPDU(parsing: [0x00, 0xFD, 0x00, 0x00, 0x00])
        #expect(parsed.expectedLength == 256)
        #expect(parsed.data.isEmpty)
    }

    @Test("case 3 and 4 short")
    func caseThreeAndFourShort() throws {
        let aid: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x08]
        let three = CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x00, data: aid)
        #expect(try three.encoded() == [0x00, 0xA4, 0x04, 0x00, 0x05] + aid)
        #expect(try CommandAPDU(parsing: three.encoded()) == three)

        let four = CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x00, data: aid, expectedLength: 0x10)
        #expect(try four.encoded() == [0x00, 0xA4, 0x04, 0x00, 0x05] + aid + [0x10])
        #expect(try CommandAPDU(parsing: four.encoded()) == four)
    }

    @Test("extended lengths: long data, Le above 256")
    func extended() throws {
        let data = [UInt8](repeating: 0xAB, count: 300)
        let command = CommandAPDU(ins: 0xDB, p1: 0x3F, p2: 0xFF, data: data, expectedLength: 65536)
        let bytes = try command.encoded()
        #expect(Array(bytes[4..<7]) == [0x00, 0x01, 0x2C])
        #expect(Array(bytes.suffix(2)) == [0x00, 0x00])
        #expect(bytes.count == 4 + 3 + 300 + 2)
        #expect(try CommandAPDU(parsing: bytes) == command)

        let caseTwo = CommandAPDU(ins: 0xCB, p1: 0x3F, p2: 0xFF, expectedLength: 1000)
        #expect(try caseTwo.encoded() == [0x00, 0xCB, 0x3F, 0xFF, 0x00, 0x03, 0xE8])
        #expect(try CommandAPDU(parsing: caseTwo.encoded()) == caseTwo)

        // A short command asked to go extended.
        let forced = try CommandAPDU(ins: 0x20, p1: 0, p2: 0x80, data: [1, 2]).encoded(extended: true)
        #expect(forced == [0x00, 0x20, 0x00, 0x80, 0x00, 0x00, 0x02, 0x01, 0x02])
    }

    @Test("malformed commands are refused, not trapped on")
    func malformed() {
        #expect(throws: ISO7816Error.commandTooShort(3)) { try CommandAPDU(parsing: [0x00, 0xA4, 0x04]) }
        #expect(throws: ISO7816Error.self) { try CommandAPDU(parsing: [0x00, 0xA4, 0x04, 0x00, 0x05, 0xA0]) }
        #expect(throws: ISO7816Error.self) { try CommandAPDU(parsing: [0x00, 0xA4, 0x04, 0x00, 0x00, 0x01]) }
        #expect(throws: ISO7816Error.self) { try CommandAPDU(parsing: [0x00, 0xA4, 0x04, 0x00, 0x00, 0x00, 0x00, 0x01]) }
        #expect(throws: ISO7816Error.expectedLengthOutOfRange(0)) {
            try CommandAPDU(ins: 0xC0, p1: 0, p2: 0, expectedLength: 0).encoded()
        }
        #expect(throws: ISO7816Error.responseTooShort(1)) { try ResponseAPDU(parsing: [0x90]) }
    }

    @Test("the description never shows the data field")
    func descriptionHidesData() {
        let verify = CommandAPDU(ins: 0x20, p1: 0, p2: 0x80, data: Array("123456".utf8) + [0xFF, 0xFF])
        #expect(verify.description == "00200080 Lc=8")
        #expect(!verify.description.contains("31"))
    }

    @Test("response APDUs split data from the status word")
    func response() throws {
        let response = try ResponseAPDU(parsing: [0x05, 0x04, 0x03, 0x90, 0x00])
        #expect(response.data == [0x05, 0x04, 0x03])
        #expect(response.status == .success)
        #expect(response.encoded == [0x05, 0x04, 0x03, 0x90, 0x00])
    }
}

@Suite("Status words", .ownThreads)
struct StatusWordTests {
    @Test("the numeric families are read in one place")
    func families() {
        #expect(StatusWord(0x6110).moreDataAvailable == 0x10)
        #expect(StatusWord(0x6100).moreDataAvailable == 256)
        #expect(StatusWord(0x6C08).exactExpectedLength == 8)
        #expect(StatusWord(0x63C2).triesLeft == 2)
        #expect(StatusWord(0x63C0).triesLeft == 0)
        #expect(StatusWord(0x6300).triesLeft == nil)
        #expect(StatusWord(0x9000).moreDataAvailable == nil)
        #expect(StatusWord.moreData(300) == StatusWord(0x6100))
        #expect(StatusWord.moreData(12) == StatusWord(0x610C))
        #expect(StatusWord.verificationFailed(triesLeft: 1) == StatusWord(0x63C1))
    }

    @Test("every common status word has a meaning", arguments: [
        (0x9000, "success"), (0x6982, "security status not satisfied"), (0x6983, "authentication method blocked"),
        (0x6A80, "incorrect parameters in the data field"), (0x6A82, "file or application not found"),
        (0x6D00, "instruction not supported"), (0x6E00, "class not supported"),
        (0x63C1, "verification failed, 1 tries left"), (0x6C10, "wrong Le, the card has 16 byte(s)"),
    ] as [(UInt16, String)])
    func meanings(raw: UInt16, meaning: String) {
        #expect(StatusWord(raw).meaning == meaning)
        #expect(StatusWord(raw).description.hasPrefix(Hexadecimal.encode(StatusWord(raw).bytes).uppercased()))
    }
}
