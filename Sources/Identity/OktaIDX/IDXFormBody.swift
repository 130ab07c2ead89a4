import BoundedJSON

/// A remediation's JSON body, built from the server's field descriptions
/// (okta-bi.md §3.2): fixed values as sent, `stateHandle` filled in, nested
/// forms as nested objects, a chosen option as its value or its form's
/// object, and the caller's values by dotted path (`credentials.passcode`).
/// A missing required value, a value for no field and a choice out of range
/// are errors before anything is sent.
extension IDXRemediation {
    /// At most this many values, each at most 64 KiB (a WebAuthn attestation is a few KiB).
    static let maximumValues = 64
    static let maximumValueBytes = 65_536

    public func body(values: [String: String], stateHandle: String?) throws(IDXError) -> JSONValue {
        guard values.count <= Self.maximumValues else { throw .badValue(field: "values", reason: "more than \(Self.maximumValues) values") }
        for (path, value) in values {
            guard value.utf8.count <= Self.maximumValueBytes else {
                throw .badValue(field: path, reason: "longer than \(Self.maximumValueBytes) bytes")
            }
        }
        var used: Set<String> = []
        let members = try Self.object(fields, prefix: "", values: values, stateHandle: stateHandle, used: &used)
        if let unknown = values.keys.sorted().first(where: { !used.contains($0) }) {
            throw .badValue(field: unknown, reason: "the `\(name)` form has no such field to fill")
        }
        return .object(members ?? [:])
    }

    /// The object of `fields`; nil when nothing in it was given and nothing is required.
    private static func object(_ fields: [IDXField], prefix: String, values: [String: String], stateHandle: String?,
                               used: inout Set<String>) throws(IDXError) -> [String: JSONValue]? {
        var members: [String: JSONValue] = [:]
        for field in fields {
            let path = prefix + field.name
            if let value = try Self.value(of: field, path: path, values: values, stateHandle: stateHandle, used: &used) {
                members[field.name] = value
            } else if field.required {
                throw .missingValue(field: path, label: field.label)
            }
        }
        return members.isEmpty ? nil : members
    }

    private static func value(of field: IDXField, path: String, values: [String: String], stateHandle: String?,
                              used: inout Set<String>) throws(IDXError) -> JSONValue? {
        if field.name == "stateHandle", field.form == nil {
            return field.value ?? stateHandle.map(JSONValue.string)
        }
        if !field.options.isEmpty {
            guard let given = values[path] else {
                return field.value.flatMap { $0 == .null ? nil : $0 }
            }
            used.insert(path)
            let option = try Self.choose(given, among: field.options, path: path)
            if let form = option.form {
                return .object(try Self.object(form, prefix: path + ".", values: values, stateHandle: stateHandle, used: &used) ?? [:])
            }
            return option.value
        }
        if let form = field.form {
            return try Self.object(form, prefix: path + ".", values: values, stateHandle: stateHandle, used: &used).map(JSONValue.object)
        }
        if let given = values[path] {
            used.insert(path)
            guard field.mutable else { throw .badValue(field: path, reason: "its value is fixed by the server") }
            if field.type == "boolean" {
                switch given.lowercased() {
                case "true", "yes", "y", "1": return .bool(true)
                case "false", "no", "n", "0", "": return .bool(false)
                default: throw .badValue(field: path, reason: "answer yes or no")
                }
            }
            return .string(given)
        }
        if let value = field.value, value != .null { return value }
        return nil
    }

    /// The option a value names: its number (1-based, as offered), its label, or its value/id.
    static func choose(_ given: String, among options: [IDXOption], path: String) throws(IDXError) -> IDXOption {
        if given.utf8.count <= 4, let number = Int(given), (1...options.count).contains(number) {
            return options[number - 1]
        }
        let wanted = given.lowercased()
        if let match = options.first(where: { $0.label.lowercased() == wanted })
            ?? options.first(where: { $0.value?.text?.lowercased() == wanted })
            ?? options.first(where: { $0.fixed("id")?.lowercased() == wanted }) {
            return match
        }
        throw .badValue(field: path, reason: "choose 1 to \(options.count) (\(options.map(\.label).joined(separator: ", ")))")
    }
}
