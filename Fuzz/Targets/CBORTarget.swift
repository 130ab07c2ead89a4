import CBOR

extension FuzzTarget {
    /// `CBOR.decode`, the one CBOR reader for CTAP requests, attestation
    /// objects and COSE keys. Beyond not crashing: whatever decodes re-encodes
    /// canonically to bytes that decode to the same value, and the canonical
    /// check accepts exactly the inputs that are already that encoding.
    static let cbor = FuzzTarget(
        name: "cbor",
        summary: "CBOR bytes into CBOR.decode (lenient and canonical), with a re-encoding round trip",
        maximumLength: 4096,
        seeds: {
            let ceremony = try await RecordedCeremony.shared()
            // CTAP2 requests and responses are a status or command byte, then CBOR.
            var seeds = ceremony.requests.enumerated().map { Seed("ctap-request-\($0)", Array($1.dropFirst())) }
            seeds += ceremony.responses.enumerated().map { Seed("ctap-response-\($0)", Array($1.dropFirst())) }
            seeds.append(Seed("attestation-object", ceremony.registration.response.attestationObject.bytes))
            seeds.append(Seed("nested-arrays", [UInt8](repeating: 0x81, count: 20) + [0x00]))
            seeds.append(Seed("huge-count", [0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]))
            seeds.append(Seed("non-canonical-map", [0xA2, 0x61, 0x62, 0x01, 0x61, 0x61, 0x02]))
            seeds.append(Seed("indefinite-and-tag", [0x9F, 0xC1, 0x01, 0xFF]))
            return seeds.filter { !$0.bytes.isEmpty }
        },
        run: { bytes in
            let canonical = try? CBOR.decode(bytes, limits: CBORDecodingLimits(requireCanonical: true))
            guard let value = try? CBOR.decode(bytes) else {
                try expect(canonical == nil, "the canonical decoder accepted what the lenient one refused")
                return
            }
            let encoded = value.encoded()
            let again = try? CBOR.decode(encoded, limits: CBORDecodingLimits(requireCanonical: true))
            try expect(again == value, "re-encoding \(value.typeName) does not decode to the same value")
            try expect((canonical != nil) == (encoded == bytes),
                       canonical == nil ? "the canonical encoding was refused as non-canonical"
                                        : "a non-canonical encoding passed the canonical check")
        })
}
