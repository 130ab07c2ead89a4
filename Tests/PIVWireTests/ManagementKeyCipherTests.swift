import Hexadecimal
import PIVWire
import Testing
import TestSupport

/// The management-key cipher against published known answers, so the client
/// and the virtual card, which share it, are both checked against the standard
/// and not only against each other.
@Suite("Management-key cipher", .ownThreads)
struct ManagementKeyCipherTests {
    static func bytes(_ hex: String) -> [UInt8] { (try? Hexadecimal.decode(hex)) ?? [] }

    /// NIST SP 800-67 Rev. 2 Appendix B: three-key TDEA, "The qufck brown fox jump", block by block.
    @Test func tripleDESKnownAnswer() {
        let cipher = ManagementKeyCipher(algorithm: PIVAlgorithmID.tripleDES,
                                         key: Self.bytes("0123456789ABCDEF23456789ABCDEF01456789ABCDEF0123"))
        let plain = ["5468652071756663", "6B2062726F776E20", "666F78206A756D70"].map(Self.bytes)
        let expected = ["A826FD8CE53B855F", "CCE21C8112256FE6", "68D5C05DD9B6B900"].map(Self.bytes)
        #expect(cipher.blockSize == 8)
        for (block, answer) in zip(plain, expected) {
            #expect(cipher.encrypt(block) == answer)
            #expect(cipher.decrypt(answer) == block)
        }
    }

    /// FIPS 197 Appendix C.1–C.3.
    @Test(arguments: [
        (PIVAlgorithmID.aes128, "000102030405060708090a0b0c0d0e0f", "69c4e0d86a7b0430d8cdb78070b4c55a"),
        (PIVAlgorithmID.aes192, "000102030405060708090a0b0c0d0e0f1011121314151617", "dda97ca4864cdfe06eaf70a0ec0d7191"),
        (PIVAlgorithmID.aes256, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
         "8ea2b7ca516745bfeafc49904b496089"),
    ])
    func aesKnownAnswer(algorithm: UInt8, key: String, answer: String) {
        let cipher = ManagementKeyCipher(algorithm: algorithm, key: Self.bytes(key))
        let plain = Self.bytes("00112233445566778899aabbccddeeff")
        #expect(cipher.blockSize == 16)
        #expect(cipher.encrypt(plain) == Self.bytes(answer))
        #expect(cipher.decrypt(Self.bytes(answer)) == plain)
    }

    @Test func wrongBlocksKeysAndAlgorithmsGiveNothing() {
        let aes = ManagementKeyCipher(algorithm: PIVAlgorithmID.aes128, key: [UInt8](repeating: 1, count: 16))
        #expect(aes.encrypt([UInt8](repeating: 0, count: 8)) == nil)
        #expect(aes.decrypt([UInt8](repeating: 0, count: 17)) == nil)
        let shortKey = ManagementKeyCipher(algorithm: PIVAlgorithmID.aes256, key: [UInt8](repeating: 1, count: 16))
        #expect(shortKey.encrypt([UInt8](repeating: 0, count: 16)) == nil)
        let notSymmetric = ManagementKeyCipher(algorithm: PIVAlgorithmID.eccP256, key: [UInt8](repeating: 1, count: 32))
        #expect(notSymmetric.encrypt([UInt8](repeating: 0, count: 16)) == nil)
        #expect(ManagementKeyCipher.keyLength(for: PIVAlgorithmID.tripleDES) == 24)
        #expect(ManagementKeyCipher.keyLength(for: PIVAlgorithmID.aes192) == 24)
        #expect(ManagementKeyCipher.keyLength(for: PIVAlgorithmID.eccP256) == nil)
    }
}
