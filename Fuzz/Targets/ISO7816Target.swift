import ISO7816
import PIVWire

extension FuzzTarget {
    /// The ISO 7816 parsers the card and the PIV client share: the same bytes
    /// as BER-TLV objects, as a command APDU and as a response APDU. Whatever
    /// parses re-encodes to bytes that parse to the same value.
    static let iso7816 = FuzzTarget(
        name: "iso7816",
        summary: "bytes as BER-TLV (BERTLV.parseAll, children), a CommandAPDU and a ResponseAPDU, with round trips",
        maximumLength: 70_000,
        seeds: {
            var seeds = PIVSeeds.commands.map { Seed("apdu-\($0.name)", $0.bytes) }
            let key = BERTLV(tag: 0x7F49, children: [BERTLV(tag: 0x86, value: [0x04] + [UInt8](repeating: 7, count: 64))])
            seeds.append(Seed("tlv-generated-key", key.encoded))
            seeds.append(Seed("tlv-long-form", [0x53, 0x82, 0x01, 0x00] + [UInt8](repeating: 0x30, count: 256)))
            seeds.append(Seed("tlv-three-byte-tag", [0x5F, 0xC1, 0x02, 0x81, 0x01, 0xFF]))
            seeds.append(Seed("extended-case4", try CommandAPDU(ins: 0xDB, p1: 0x3F, p2: 0xFF,
                                                                data: [UInt8](repeating: 1, count: 300),
                                                                expectedLength: 65536).encoded()))
            return seeds
        },
        run: { bytes in
            if let objects = try? BERTLV.parseAll(bytes) {
                let again = try? BERTLV.parseAll(objects.flatMap(\.encoded))
                try expect(again == objects, "BER-TLV objects do not survive re-encoding")
                for object in objects { _ = try? object.children() }
            }
            if let command = try? CommandAPDU(parsing: bytes) {
                _ = command.description
                let encoded: [UInt8]
                do { encoded = try command.encoded() } catch {
                    throw FuzzFinding("a parsed command APDU cannot be encoded: \(error)")
                }
                try expect((try? CommandAPDU(parsing: encoded)) == command, "a command APDU does not survive re-encoding")
            }
            if let response = try? ResponseAPDU(parsing: bytes) {
                try expect(response.encoded == bytes, "a response APDU does not re-encode to its bytes")
                _ = response.description
            }
        })
}
