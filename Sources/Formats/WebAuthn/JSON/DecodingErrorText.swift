import FoundationEssentials

/// Turns a DecodingError into one line a user can act on — "missing field
/// `rp.id`", "field `timeout` should be a number" — naming the member, never
/// its value. Shared by every reader of JSON the user or a server supplies.
public enum DecodingErrorText {
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        let path = memberPath
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context.codingPath)
            return "missing field `\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)`"
        case .typeMismatch(let type, let context):
            return "field `\(path(context.codingPath))` should be \(Self.name(of: type))"
        case .valueNotFound(let type, let context):
            return "field `\(path(context.codingPath))` is null but should be \(Self.name(of: type))"
        case .dataCorrupted(let context):
            let at = path(context.codingPath)
            return at.isEmpty ? "not valid JSON" : "field `\(at)`: \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    /// A coding path as a JSON member path — `rp.id`, `pubKeyCredParams[1].alg` —
    /// or "" at the top level. For readers that word their errors their own way.
    public static func memberPath(_ keys: [any CodingKey]) -> String {
        let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.hasPrefix(".") ? String(text.dropFirst()) : text
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is UInt32.Type, is Int64.Type, is Double.Type: return "a number"
        default:
            let text = "\(type)"
            if text.hasPrefix("Array") { return "an array" }
            if text.hasPrefix("Dictionary") { return "an object" }
            return "an object"
        }
    }
}
