import CCBOR

// Canonical encoding (CTAP 2.1 §8 "CTAP2 canonical CBOR encoding form"):
// shortest heads and definite lengths come from libcbor's head encoders;
// map keys are sorted here by major type, then encoded length, then bytes.

extension CBOR {
    /// The CTAP2 canonical encoding of this item.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        encode(into: &out)
        return out
    }

    public func encode(into out: inout [UInt8]) {
        switch self {
        case .unsigned(let n):
            appendHead(&out) { cbor_encode_uint(n, $0, $1) }
        case .negative(let n):
            appendHead(&out) { cbor_encode_negint(n, $0, $1) }
        case .bytes(let b):
            appendHead(&out) { cbor_encode_bytestring_start(b.count, $0, $1) }
            out.append(contentsOf: b)
        case .text(let s):
            let utf8 = Array(s.utf8)
            appendHead(&out) { cbor_encode_string_start(utf8.count, $0, $1) }
            out.append(contentsOf: utf8)
        case .array(let items):
            appendHead(&out) { cbor_encode_array_start(items.count, $0, $1) }
            for item in items { item.encode(into: &out) }
        case .map(let entries):
            appendHead(&out) { cbor_encode_map_start(entries.count, $0, $1) }
            let keyed = entries.map { (key: $0.key.encoded(), value: $0.value) }
                .sorted { Self.canonicalOrder($0.key, $1.key) }
            for entry in keyed {
                out.append(contentsOf: entry.key)
                entry.value.encode(into: &out)
            }
        case .bool(let b):
            appendHead(&out) { cbor_encode_bool(b, $0, $1) }
        case .null:
            appendHead(&out) { cbor_encode_null($0, $1) }
        }
    }

    /// CTAP2 key order for two encoded keys: major type, then length, then bytes.
    static func canonicalOrder(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let majorA = a.first.map { $0 >> 5 } ?? 0
        let majorB = b.first.map { $0 >> 5 } ?? 0
        if majorA != majorB { return majorA < majorB }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }

    /// Runs one libcbor head encoder into a 9-byte scratch buffer (the longest head).
    private func appendHead(_ out: inout [UInt8],
                            _ encoder: (UnsafeMutablePointer<UInt8>, Int) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 9) { scratch in
            let written = encoder(scratch.baseAddress!, 9)
            precondition(written > 0, "libcbor head encoder needs at most 9 bytes")
            out.append(contentsOf: scratch[0..<written])
        }
    }
}
