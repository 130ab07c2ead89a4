/// WebAuthn's IDL declares its enumerations as plain DOMStrings and tells
/// clients to ignore values they do not know (WebAuthn L3 §2.1.1): an unknown
/// `residentKey` acts as if the member were absent, an unknown hint is
/// dropped. These helpers decode that way, so options from a newer relying
/// party still parse. A value of the wrong JSON type is still an error.
extension KeyedDecodingContainer {
    /// The known value of an enumeration member; nil when absent, null or unknown.
    func decodeKnownValue<Value: RawRepresentable>(_ type: Value.Type, forKey key: Key) throws -> Value?
    where Value.RawValue == String {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        return Value(rawValue: text)
    }

    /// The known members of an enumeration list, in order; unknown members are dropped.
    func decodeKnownValues<Value: RawRepresentable>(_ type: Value.Type, forKey key: Key) throws -> [Value]?
    where Value.RawValue == String {
        guard let texts = try decodeIfPresent([String].self, forKey: key) else { return nil }
        return texts.compactMap(Value.init(rawValue:))
    }
}
