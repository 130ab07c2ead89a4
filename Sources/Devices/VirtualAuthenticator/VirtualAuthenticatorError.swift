/// Why the virtual authenticator could not be set up or could not save its state.
///
/// CTAP-level failures are not errors of this kind: they travel to the host as
/// CTAP status bytes (`CTAPStatus`), as a real key's would. These cases are
/// about the machine the authenticator runs on, and each says what to do.
/// No description ever contains key material, a PIN or file contents.
public enum VirtualAuthenticatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The state file exists but cannot be read (permissions, I/O error).
    case stateUnreadable(path: String, reason: String)
    /// The state file was read but is not a valid state: which part, and why.
    case stateCorrupt(path: String, reason: String)
    /// The state file was written by an unknown format version.
    case stateFormatUnsupported(path: String, version: Int)
    /// The state (or its directory) cannot be written.
    case stateNotWritable(path: String, reason: String)
    /// A user-action policy string does not parse; `source` names where it came from.
    case invalidPolicy(text: String, source: String)
    /// A configuration value is out of range.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .stateUnreadable(let path, let reason):
            return "cannot read virtual authenticator state \(path): \(reason)"
        case .stateCorrupt(let path, let reason):
            return "virtual authenticator state \(path) is damaged (\(reason)); move it aside to start with a fresh authenticator"
        case .stateFormatUnsupported(let path, let version):
            return "virtual authenticator state \(path) has format version \(version), which this build does not know; use a newer build"
        case .stateNotWritable(let path, let reason):
            return "cannot write virtual authenticator state \(path): \(reason)"
        case .invalidPolicy(let text, let source):
            return "\(source): \"\(text)\" is not a user-action policy; use approve, deny, timeout, timeout:<ms> or approve-after:<ms>"
        case .invalidConfiguration(let why):
            return "invalid virtual authenticator configuration: \(why)"
        }
    }
}
