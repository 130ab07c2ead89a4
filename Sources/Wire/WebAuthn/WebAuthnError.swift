/// A WebAuthn structure that cannot be parsed or does not verify.
///
/// Each case names the field or the step, so a relying party can answer with
/// something a developer can act on.
public enum WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A structure is malformed: which one, and why.
    case malformed(String, reason: String)
    /// A COSE key uses an algorithm or curve this library does not support.
    case unsupportedAlgorithm(Int)
    /// A verification step failed (WebAuthn L3 §7.1/§7.2): which check, and why.
    case verificationFailed(String)

    public var description: String {
        switch self {
        case .malformed(let what, let reason): return "\(what) is malformed: \(reason)"
        case .unsupportedAlgorithm(let alg): return "COSE algorithm \(alg) is not supported"
        case .verificationFailed(let why): return "verification failed: \(why)"
        }
    }
}
