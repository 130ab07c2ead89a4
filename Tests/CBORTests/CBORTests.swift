import Testing
import TestSupport
@testable import CBOR

@Suite(.ownThreads) struct CBOREncodingTests {
    @Test func integersUseTheShortestHead() {
        #expect(CBOR.int(0).encoded() == [0x00])
        #expect(CBOR.int(23).encoded() == [0x17])
        #expect(CBOR.int(24).encoded() == [0x18, 0x18])
        #expect(CBOR.int(255).encoded() == [0x18, 0xFF])
        #expect(CBOR.int(256).encoded() == [0x19, 0x01, 0x00])
        #expect(CBOR.int(65_536).encoded() == [0x1A, 0x00, 0x01, 0x00, 0x00])
        #expect(CBOR.int(1 << 32).encoded() == [0x1B, 0, 0, 0, 1, 0, 0, 0, 0])
        #expect(CBOR.int(-1).encoded() == [0x20])
        #expect(CBOR.int(-7).encoded() == [0x26])
        #expect(CBOR.int(-257).encoded() == [0x39, 0x01, 0x00])
    }

    @Test func stringsAndContainersUseDefiniteLengths() {
        #expect(CBOR.bytes([1, 2]).encoded() == [0x42, 1, 2])
        #expect(CBOR.text("up").encoded() == [0x62, 0x75, 0x70])
        #expect(CBOR.array([1, 2]).encoded() == [0x82, 0x01, 0x02])
        #expect(CBOR.bytes(Array(repeating: 0, count: 32)).encoded().prefix(2) == [0x58, 0x20])
        #expect(CBOR.bool(true).encoded() == [0xF5])
        #expect(CBOR.null.encoded() == [0xF6])
    }

    /// The COSE ES256 key layout from WebAuthn §6.5.1.1: keys 1, 3, -1, -2, -3.
    @Test func mapKeysSortByMajorTypeThenLengthThenBytes() {
        let x = [UInt8](repeating: 0xAA, count: 32), y = [UInt8](repeating: 0xBB, count: 32)
        let key: CBOR = [-3: .bytes(y), 3: -7, -1: 1, 1: 2, -2: .bytes(x)]
        let encoded = key.encoded()
        #expect(Array(encoded.prefix(9)) == [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58])
        let options: CBOR = ["up": true, "plat": false, "rk": true, 7: 1]
        // 7 (uint) < "rk" < "up" (same length, bytewise) < "plat" (longer)
        #expect(options.encoded() == [0xA4, 0x07, 0x01, 0x62, 0x72, 0x6B, 0xF5,
                                      0x62, 0x75, 0x70, 0xF5, 0x64, 0x70, 0x6C, 0x61, 0x74, 0xF4])
    }
}

@Suite(.ownThreads) struct CBORDecodingTests {
    @Test func roundTripsNestedItems() throws {
        let item: CBOR = [1: "rp", 2: [-7, -8, .bytes([0, 255])], "x": ["a": .null, "b": false],
                          3: .int(Int64.min), 4: .unsigned(UInt64.max)]
        #expect(try CBOR.decode(item.encoded()) == item)
        #expect(try CBOR.decode(item.encoded(), limits: .init(requireCanonical: true)) == item)
    }

    @Test func decodeFirstReportsBytesUsed() throws {
        let bytes = CBOR.array([1, 2]).encoded() + [0xFF, 0xEE]
        let (item, used) = try CBOR.decodeFirst(bytes)
        #expect(item == [1, 2])
        #expect(used == 3)
        #expect(throws: CBORError.trailingBytes(2)) { try CBOR.decode(bytes) }
    }

    @Test func typedErrorsForBadInput() {
        #expect(throws: CBORError.truncated) { try CBOR.decode([]) }
        #expect(throws: CBORError.truncated) { try CBOR.decode([0x82, 0x01]) }
        #expect(throws: CBORError.truncated) { try CBOR.decode([0x58, 0x20, 0x00]) }
        #expect(throws: CBORError.unsupported("tag")) { try CBOR.decode([0xC1, 0x00]) }
        #expect(throws: CBORError.unsupported("floating-point number")) {
            try CBOR.decode([0xF9, 0x3C, 0x00])
        }
        #expect(throws: CBORError.unsupported("indefinite-length array")) {
            try CBOR.decode([0x9F, 0x01, 0xFF])
        }
        #expect(throws: CBORError.invalidUTF8) { try CBOR.decode([0x62, 0xC3, 0x28]) }
        #expect(throws: CBORError.duplicateMapKey) { try CBOR.decode([0xA2, 0x01, 0x00, 0x01, 0x00]) }
        #expect(throws: CBORError.malformed) { try CBOR.decode([0x1C]) }
    }

    @Test func limitsAreEnforced() {
        let deep = [UInt8](repeating: 0x81, count: 40) + [0x00]
        #expect(throws: CBORError.tooDeep(limit: 16)) { try CBOR.decode(deep) }
        #expect(throws: CBORError.tooLarge(limit: 4)) {
            try CBOR.decode([0x85, 1, 2, 3, 4, 5], limits: .init(maxBytes: 4))
        }
        #expect(throws: CBORError.tooManyItems(limit: 3)) {
            try CBOR.decode([0x84, 1, 2, 3, 4], limits: .init(maxItems: 3))
        }
        // A header that claims 2^32 elements in a five-byte input is refused before allocation.
        #expect(throws: CBORError.truncated) { try CBOR.decode([0x9A, 0xFF, 0xFF, 0xFF, 0xFF]) }
        // A maliciously deep input is refused quickly, whatever its size.
        let veryDeep = [UInt8](repeating: 0x81, count: 200_000) + [0x00]
        #expect(throws: CBORError.tooDeep(limit: 16)) { try CBOR.decode(veryDeep) }
    }

    @Test func canonicalFormIsCheckedWhenAsked() throws {
        let longForm: [UInt8] = [0x18, 0x05]  // 5 with a needless one-byte argument
        #expect(try CBOR.decode(longForm) == 5)
        #expect(throws: CBORError.nonCanonical) {
            try CBOR.decode(longForm, limits: .init(requireCanonical: true))
        }
        let unsorted: [UInt8] = [0xA2, 0x03, 0x00, 0x01, 0x00]
        #expect(throws: CBORError.nonCanonical) {
            try CBOR.decode(unsorted, limits: .init(requireCanonical: true))
        }
    }
}
