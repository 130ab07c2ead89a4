import ISO7816
import Testing
import TestSupport

@Suite("BER-TLV", .ownThreads)
struct BERTLVTests {
    @Test("multi-byte tags encode and parse")
    func multiByteTags() throws {
        #expect(TLVTag(0x5FC10B).bytes == [0x5F, 0xC1, 0x0B])
        #expect(TLVTag(0x7F49).bytes == [0x7F, 0x49])
        #expect(TLVTag(0x53).bytes == [0x53])
        #expect(TLVTag(0x7C).isConstructed)
        #expect(!TLVTag(0x53).isConstructed)

        let object = BERTLV(tag: 0x5FC10B, value: [1, 2, 3])
        #expect(object.encoded == [0x5F, 0xC1, 0x0B, 0x03, 1, 2, 3])
        let (parsed, used) = try BERTLV.parseFirst(object.encoded)
        #expect(parsed == object)
        #expect(used == 7)
    }

    @Test("long-form lengths 81 and 82 use the shortest form", arguments: [0, 1, 127, 128, 255, 256, 1500, 65535])
    func lengths(length: Int) throws {
        let value = [UInt8](repeating: 0x42, count: length)
        let encoded = BERTLV(tag: 0x53, value: value).encoded
        switch length {
        case ..<128: #expect(encoded[1] == UInt8(length))
        case ..<256: #expect(Array(encoded[1...2]) == [0x81, UInt8(length)])
        default: #expect(Array(encoded[1...3]) == [0x82, UInt8(length >> 8), UInt8(length & 0xFF)])
        }
        #expect(try BERTLV.parseAll(encoded) == [BERTLV(tag: 0x53, value: value)])
    }

    @Test("a generated-key template parses the way ykpiv reads it")
    func publicKeyTemplate() throws {
        let point = [0x04] + [UInt8](repeating: 0x11, count: 64)
        let template = BERTLV(tag: 0x7F49, children: [BERTLV(tag: 0x86, value: point)])
        let encoded = template.encoded
        // 7F 49 43 86 41 04…: a single-byte length of 65 at offset 4.
        #expect(Array(encoded[0...4]) == [0x7F, 0x49, 0x43, 0x86, 0x41])
        let children = try BERTLV.parseFirst(encoded).0.children()
        #expect(children.first(0x86)?.value == point)
    }

    @Test("truncated and unsupported encodings are errors")
    func malformed() {
        #expect(throws: ISO7816Error.self) { try BERTLV.parseAll([0x53, 0x05, 0x01]) }
        #expect(throws: ISO7816Error.self) { try BERTLV.parseAll([0x5F]) }
        #expect(throws: ISO7816Error.self) { try BERTLV.parseAll([0x53, 0x82, 0x01]) }
        #expect(throws: ISO7816Error.self) { try BERTLV.parseAll([0x53, 0x80]) }
        #expect(throws: ISO7816Error.self) { try BERTLV.parseAll([0x53, 0x85, 0, 0, 0, 0, 1]) }
        #expect(throws: ISO7816Error.self) { try BERTLV.parseAll([0x5F, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00]) }
    }
}
