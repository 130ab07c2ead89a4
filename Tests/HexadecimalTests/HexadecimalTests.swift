import Hexadecimal
import Testing
import TestSupport

@Suite("Hexadecimal", .ownThreads)
struct HexadecimalTests {
    @Test func roundTrip() throws {
        #expect(Hexadecimal.encode([0x00, 0x9D, 0xFF]) == "009dff")
        #expect(Hexadecimal.encode([0x0A, 0xFF], uppercase: true) == "0AFF")
        #expect(try Hexadecimal.decode("00 9D:ff") == [0x00, 0x9D, 0xFF])
        #expect(throws: HexadecimalError()) { try Hexadecimal.decode("0") }
        #expect(throws: HexadecimalError()) { try Hexadecimal.decode("zz") }
        #expect(throws: HexadecimalError()) { try Hexadecimal.decode("0 0") }
    }

    /// Names the vault writes (entry files) are read back only in the spelling it wrote.
    @Test func exactlyAsWritten() {
        #expect(Hexadecimal.decodeExactly("009dff") == [0x00, 0x9D, 0xFF])
        #expect(Hexadecimal.decodeExactly("") == [])
        for other in ["009DFF", "00 9d", "00:9d", "0", "0g", "é0"] {
            #expect(Hexadecimal.decodeExactly(other) == nil, "\(other)")
        }
    }
}
