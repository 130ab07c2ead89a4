/// Why a devserver could not start or keep its state. Each case names what
/// to fix; none ever contains a key, a secret or a token.
public enum DevServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A configuration value is unusable: which one, and why.
    case invalidConfiguration(String, reason: String)
    /// The data directory cannot be used as it is.
    case dataDirectory(path: String, reason: String)
    /// The stored state file cannot be read or written.
    case stateFile(path: String, reason: String)
    /// Another devserver holds the data directory.
    case dataDirectoryInUse(path: String)
    /// The listening socket could not be opened.
    case listenFailed(address: String, reason: String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let what, let reason):
            return "invalid \(what): \(reason)"
        case .dataDirectory(let path, let reason):
            return "data directory \(path): \(reason)"
        case .stateFile(let path, let reason):
            return "state file \(path): \(reason)"
        case .dataDirectoryInUse(let path):
            return "data directory \(path) is in use by another passkey-devserver"
        case .listenFailed(let address, let reason):
            return "cannot listen on \(address): \(reason)"
        }
    }
}
