import Testing
import TestSupport
@testable import CBOR

/// Heads whose 64-bit argument does not fit a Swift `Int`. libcbor passes
/// array and map counts as `size_t`, so a count of 2^63 or more arrives as a
/// negative `Int`: the decoder must answer a `CBORError`, never trap, never
/// allocate for the count and never build a shorter container than the head claims.
@Suite(.ownThreads) struct HugeHeadTests {
    private static let allOnes = [UInt8](repeating: 0xFF, count: 8)
    private static let twoTo63: [UInt8] = [0x80, 0, 0, 0, 0, 0, 0, 0]

    @Test func arrayCountsOf2To63AndMoreAreRefused() {
        // One element follows: with the count read as -1 this decoded as [1].
        #expect(throws: CBORError.truncated) { try CBOR.decode([0x9B] + Self.allOnes + [0x01]) }
        #expect(throws: CBORError.truncated) { try CBOR.decode([0x9B] + Self.twoTo63 + [0x01, 0x02]) }
        #expect(throws: CBORError.truncated) { try CBOR.decode([0x81, 0x9B] + Self.allOnes + [0x01]) }
    }

    @Test func mapCountsOf2To63AndMoreAreRefused() {
        #expect(throws: CBORError.truncated) { try CBOR.decode([0xBB] + Self.allOnes + [0x01, 0x02]) }
        #expect(throws: CBORError.truncated) { try CBOR.decode([0xBB] + Self.twoTo63 + [0x01, 0x02]) }
        // 2^62 pairs are 2^63 items: the doubling overflows `Int`.
        #expect(throws: CBORError.truncated) {
            try CBOR.decode([0xBB, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02])
        }
        #expect(throws: CBORError.truncated) { try CBOR.decode([0xA1, 0x01, 0xBB] + Self.allOnes + [0x01, 0x02]) }
    }

    @Test func stringLengthsOf2To63AndMoreAreRefused() {
        for major: UInt8 in [0x5B, 0x7B] {
            #expect(throws: CBORError.truncated) { try CBOR.decode([major] + Self.allOnes + [0x61]) }
            #expect(throws: CBORError.truncated) { try CBOR.decode([major] + Self.twoTo63 + [0x61]) }
        }
    }

    /// Major type 1 with argument 2^64-1 is -2^64: outside `Int64`, so it is
    /// kept exactly as `.negative(UInt64.max)` and `intValue` says nil.
    @Test func theMostNegativeIntegerIsKeptExactly() throws {
        let bytes: [UInt8] = [0x3B] + Self.allOnes
        let item = try CBOR.decode(bytes)
        #expect(item == .negative(UInt64.max))
        #expect(item.intValue == nil)
        #expect(item.encoded() == bytes)
        #expect(try CBOR.decode([0x3B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]).intValue == Int64.min)
        #expect(try CBOR.decode([0x3B] + Self.twoTo63).intValue == nil)
        #expect(try CBOR.decode([0x1B] + Self.allOnes).intValue == nil)
    }
}
