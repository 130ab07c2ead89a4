/// Turns a DecodingError into one line a user can act on — "missing field
/// `rp.id`", "field `timeout` should be a number" — naming the member, never
/// its value. The wording of the agent, the CLI and the passwordless client;
/// readers that word their errors their own way start from `DecodingProblem`.
public enum DecodingErrorText {
    public static func describe(_ error: any Error) -> String {
        guard let problem = DecodingProblem(error) else { return "\(error)" }
        let at = problem.path
        switch problem.kind {
        case .missing:
            return "missing field `\(problem.missingMemberPath ?? at)`"
        case .wrongType(let expected):
            return "field `\(at)` should be \(name(of: expected))"
        case .null(let expected):
            return "field `\(at)` is null but should be \(name(of: expected))"
        case .invalid(let reason):
            return at.isEmpty ? "not valid JSON" : "field `\(at)`: \(reason)"
        }
    }

    private static func name(of kind: JSONKind) -> String {
        switch kind {
        case .string: return "a string"
        case .boolean: return "true or false"
        case .number: return "a number"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
