import CBOR

/// Typed reads from a CTAP request map, failing with the status codes
/// CTAP 2.1 §8 assigns: a missing required member is MISSING_PARAMETER
/// (0x14), a member of the wrong CBOR type is CBOR_UNEXPECTED_TYPE (0x11).
struct RequestMap {
    let entries: [CBOR: CBOR]

    static let empty = RequestMap(entries: [:])

    init(entries: [CBOR: CBOR]) { self.entries = entries }

    /// `item` nil (a command sent without parameters) reads as an empty map.
    init(_ item: CBOR?) throws(CTAPStatus) {
        guard let item else { entries = [:]; return }
        guard let map = item.mapValue else { throw .cborUnexpectedType }
        entries = map
    }

    func contains(_ key: CBOR) -> Bool { entries[key] != nil }

    func bytes(_ key: CBOR) throws(CTAPStatus) -> [UInt8]? {
        guard let value = entries[key] else { return nil }
        guard let bytes = value.bytesValue else { throw .cborUnexpectedType }
        return bytes
    }

    func requiredBytes(_ key: CBOR) throws(CTAPStatus) -> [UInt8] {
        guard let bytes = try bytes(key) else { throw .missingParameter }
        return bytes
    }

    func text(_ key: CBOR) throws(CTAPStatus) -> String? {
        guard let value = entries[key] else { return nil }
        guard let text = value.textValue else { throw .cborUnexpectedType }
        return text
    }

    func requiredText(_ key: CBOR) throws(CTAPStatus) -> String {
        guard let text = try text(key) else { throw .missingParameter }
        return text
    }

    /// A non-negative integer.
    func unsigned(_ key: CBOR) throws(CTAPStatus) -> UInt64? {
        guard let value = entries[key] else { return nil }
        guard let number = value.uintValue else { throw .cborUnexpectedType }
        return number
    }

    func requiredUnsigned(_ key: CBOR) throws(CTAPStatus) -> UInt64 {
        guard let number = try unsigned(key) else { throw .missingParameter }
        return number
    }

    /// Any integer (COSE algorithm identifiers are negative).
    func integer(_ key: CBOR) throws(CTAPStatus) -> Int64? {
        guard let value = entries[key] else { return nil }
        switch value {
        case .unsigned, .negative:
            // Out of Int64 range still is an integer: report it as unusable, not as a type error.
            guard let number = value.intValue else { throw .invalidParameter }
            return number
        default:
            throw .cborUnexpectedType
        }
    }

    func bool(_ key: CBOR) throws(CTAPStatus) -> Bool? {
        guard let value = entries[key] else { return nil }
        guard let flag = value.boolValue else { throw .cborUnexpectedType }
        return flag
    }

    func map(_ key: CBOR) throws(CTAPStatus) -> RequestMap? {
        guard let value = entries[key] else { return nil }
        guard let entries = value.mapValue else { throw .cborUnexpectedType }
        return RequestMap(entries: entries)
    }

    func requiredMap(_ key: CBOR) throws(CTAPStatus) -> RequestMap {
        guard let map = try map(key) else { throw .missingParameter }
        return map
    }

    func array(_ key: CBOR) throws(CTAPStatus) -> [CBOR]? {
        guard let value = entries[key] else { return nil }
        guard let array = value.arrayValue else { throw .cborUnexpectedType }
        return array
    }

    func requiredArray(_ key: CBOR) throws(CTAPStatus) -> [CBOR] {
        guard let array = try array(key) else { throw .missingParameter }
        return array
    }

    /// The raw member, for values re-encoded into a MAC (credential management).
    func raw(_ key: CBOR) -> CBOR? { entries[key] }
}

/// The options map of makeCredential/getAssertion: text keys, boolean values.
/// Unknown option names are ignored, as CTAP 2.1 §6.1.2 step 5 requires.
struct RequestOptions {
    let map: RequestMap

    init(_ map: RequestMap?) { self.map = map ?? .empty }

    func flag(_ name: String) throws(CTAPStatus) -> Bool? { try map.bool(.text(name)) }
}
