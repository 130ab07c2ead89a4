/// What a `DecodingError` says is wrong, and where: the one reading of it
/// that every wording starts from. Never holds the value at fault (values
/// may be secrets).
public struct DecodingProblem: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A required member is absent; `path` is the object that lacks it.
        case missing(member: String)
        /// The member holds another kind of JSON value.
        case wrongType(expected: JSONKind)
        /// The member is null where a value is needed.
        case null(expected: JSONKind)
        /// The value has the right kind but is not acceptable. With an empty
        /// `path`, the text is not JSON (or not the document) at all.
        case invalid(reason: String)
    }

    /// The JSON member path (`rp.id`, `pubKeyCredParams[1].alg`); "" at the top level.
    public var path: String
    public var kind: Kind

    /// nil when `error` is not a `DecodingError`.
    public init?(_ error: any Error) {
        guard let error = error as? DecodingError else { return nil }
        switch error {
        case .keyNotFound(let key, let context):
            self.init(path: Self.memberPath(context.codingPath), kind: .missing(member: key.stringValue))
        case .typeMismatch(let type, let context):
            self.init(path: Self.memberPath(context.codingPath), kind: .wrongType(expected: JSONKind(type)))
        case .valueNotFound(let type, let context):
            self.init(path: Self.memberPath(context.codingPath), kind: .null(expected: JSONKind(type)))
        case .dataCorrupted(let context):
            self.init(path: Self.memberPath(context.codingPath), kind: .invalid(reason: context.debugDescription))
        @unknown default:
            self.init(path: "", kind: .invalid(reason: "\(error)"))
        }
    }

    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    /// For `.missing`: the full path of the absent member (`rp.id`).
    public var missingMemberPath: String? {
        guard case .missing(let member) = kind else { return nil }
        return path.isEmpty ? member : path + "." + member
    }

    /// A coding path as a JSON member path — `rp.id`, `pubKeyCredParams[1].alg` —
    /// or "" at the top level.
    public static func memberPath(_ keys: [any CodingKey]) -> String {
        let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.hasPrefix(".") ? String(text.dropFirst()) : text
    }
}

/// The kinds of JSON value a decoder may have expected.
public enum JSONKind: Sendable, Equatable {
    case string, boolean, number, array, object

    init(_ type: Any.Type) {
        switch type {
        case is String.Type: self = .string
        case is Bool.Type: self = .boolean
        case is Int.Type, is UInt32.Type, is Int64.Type, is Double.Type: self = .number
        default: self = "\(type)".hasPrefix("Array") ? .array : .object
        }
    }
}
