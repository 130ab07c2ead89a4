import FIDO

/// Why a WebAuthn ceremony on this machine failed.
public enum CeremonyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The authenticator (through libfido2) said no.
    case authenticator(FIDOError)
    /// The options JSON cannot be used: which field, and why.
    case invalidOptions(String)
    /// The origin may not act for this relying party id (WebAuthn §5.1.3 step 7).
    case originNotAllowed(origin: String, rpId: String)
    /// `--user` named no account on the key; the names it holds are listed.
    case noSuchAccount(String, available: [String])
    /// The person cancelled a prompt.
    case cancelled

    public var description: String {
        switch self {
        case .authenticator(let error): return error.description
        case .invalidOptions(let why): return "the options cannot be used: \(why)"
        case .originNotAllowed(let origin, let rpId):
            return "origin \(origin) may not use relying party id \"\(rpId)\": the id must be the origin's host or a parent domain of it"
        case .noSuchAccount(let wanted, let available):
            return "no account named \"\(wanted)\" on this key (it holds: \(available.joined(separator: ", ")))"
        case .cancelled: return "the ceremony was cancelled"
        }
    }
}
