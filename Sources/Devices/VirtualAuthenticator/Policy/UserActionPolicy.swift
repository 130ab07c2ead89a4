/// What the simulated user does when the authenticator asks for a touch
/// (user presence) or a fingerprint (built-in user verification).
///
/// Text form, as accepted by `init(parsing:)` and printed by `description`:
/// `approve` · `deny` · `timeout` · `timeout:<ms>` · `approve-after:<ms>`.
public enum UserActionPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The user acts at once (the default).
    case approve
    /// The user refuses: presence → OPERATION_DENIED; verification → a failed
    /// match that costs one UV retry.
    case deny
    /// The user never acts. The request waits, sending KEEPALIVE(UPNEEDED),
    /// until CANCEL or until the time runs out → USER_ACTION_TIMEOUT.
    /// `nil` waits for the configuration's user-action timeout.
    case timeout(milliseconds: Int?)
    /// The user acts after this long (capped by the user-action timeout), so
    /// progress notifications can be observed in tests.
    case approveAfter(milliseconds: Int)

    /// The longest delay a policy string may name: one day.
    public static let maximumMilliseconds = 86_400_000

    /// Parses the text form; surrounding spaces and letter case are ignored.
    public init(parsing text: String, source: String = "user-action policy") throws(VirtualAuthenticatorError) {
        let trimmed = text.trimmingASCIISpaces().lowercased()
        func milliseconds(after prefix: String) throws(VirtualAuthenticatorError) -> Int {
            let digits = trimmed.dropFirst(prefix.count)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int(digits), value <= Self.maximumMilliseconds else {
                throw .invalidPolicy(text: text, source: source)
            }
            return value
        }
        switch trimmed {
        case "approve": self = .approve
        case "deny": self = .deny
        case "timeout": self = .timeout(milliseconds: nil)
        case _ where trimmed.hasPrefix("timeout:"):
            self = .timeout(milliseconds: try milliseconds(after: "timeout:"))
        case _ where trimmed.hasPrefix("approve-after:"):
            self = .approveAfter(milliseconds: try milliseconds(after: "approve-after:"))
        default:
            throw .invalidPolicy(text: text, source: source)
        }
    }

    public var description: String {
        switch self {
        case .approve: return "approve"
        case .deny: return "deny"
        case .timeout(nil): return "timeout"
        case .timeout(let milliseconds?): return "timeout:\(milliseconds)"
        case .approveAfter(let milliseconds): return "approve-after:\(milliseconds)"
        }
    }

    /// Whether a request under this policy may block; such requests run on a
    /// worker thread so KEEPALIVEs flow and CANCEL is heard.
    var mayWait: Bool {
        switch self {
        case .approve, .deny: return false
        case .timeout: return true
        case .approveAfter(let milliseconds): return milliseconds > 0
        }
    }
}

extension String {
    func trimmingASCIISpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
