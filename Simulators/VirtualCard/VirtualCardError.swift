/// Why the virtual card cannot run.
public enum VirtualCardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The state file cannot be read or written.
    case stateFile(path: String, reason: String)
    /// The state file exists but is not a state this card understands.
    case invalidState(path: String, reason: String)
    /// The vpcd address cannot be resolved.
    case unresolvableHost(String)
    /// A socket call failed in a way retrying will not fix.
    case socket(String)

    public var description: String {
        switch self {
        case .stateFile(let path, let reason):
            return "cannot use the card state file \(path): \(reason)"
        case .invalidState(let path, let reason):
            return "the card state file \(path) is not valid: \(reason) (move it away to start with a new card)"
        case .unresolvableHost(let host):
            return "cannot resolve the vpcd host \"\(host)\""
        case .socket(let why):
            return "socket error: \(why)"
        }
    }
}
