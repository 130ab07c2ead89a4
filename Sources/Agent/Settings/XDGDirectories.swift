/// The XDG base directories (specifications.freedesktop.org/basedir 0.8):
/// absolute values from the environment, else the spec's defaults under $HOME.
public struct XDGDirectories: Sendable, Equatable {
    public var configHome: String
    public var dataHome: String
    public var stateHome: String
    public var cacheHome: String
    /// No default exists: nil when unset or not absolute.
    public var runtimeDir: String?

    public init(environment: [String: String]) {
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/"
        func absolute(_ name: String, default fallback: String) -> String {
            if let value = environment[name], value.hasPrefix("/") { return value }
            return fallback
        }
        configHome = absolute("XDG_CONFIG_HOME", default: home + "/.config")
        dataHome = absolute("XDG_DATA_HOME", default: home + "/.local/share")
        stateHome = absolute("XDG_STATE_HOME", default: home + "/.local/state")
        cacheHome = absolute("XDG_CACHE_HOME", default: home + "/.cache")
        runtimeDir = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }
    }
}

/// Where passkey-agent keeps its files.
public struct AgentPaths: Sendable, Equatable {
    public var xdg: XDGDirectories
    /// `PASSKEY_AGENT_SOCK`, else `$XDG_RUNTIME_DIR/passkey-agent/agent.sock`; nil if neither is usable.
    public var socket: String?
    /// `$XDG_DATA_HOME/passkey-agent` (0700): the vault, the software authenticator's state.
    public var dataDirectory: String
    /// `$XDG_CONFIG_HOME/passkey-agent/config.toml`.
    public var configFile: String
    /// `$XDG_CONFIG_HOME/passkey-agent/accounts`: one `ACCOUNT.toml` per `passkey login` account.
    public var accountsDirectory: String
    /// `$XDG_CACHE_HOME/passkey-agent/oidc`: providers' discovery documents and keys.
    public var openIDCacheDirectory: String

    public init(environment: [String: String]) {
        xdg = XDGDirectories(environment: environment)
        socket = Self.socket(explicit: environment["PASSKEY_AGENT_SOCK"], runtimeDirectory: environment["XDG_RUNTIME_DIR"])
        dataDirectory = xdg.dataHome + "/passkey-agent"
        configFile = xdg.configHome + "/passkey-agent/config.toml"
        accountsDirectory = xdg.configHome + "/passkey-agent/accounts"
        openIDCacheDirectory = xdg.cacheHome + "/passkey-agent/oidc"
    }

    /// The socket's path from `PASSKEY_AGENT_SOCK` and `XDG_RUNTIME_DIR`:
    /// the one rule, also for callers that read the two variables alone
    /// (the quick `passkey token get`, which builds no dictionary).
    public static func socket(explicit: String?, runtimeDirectory: String?) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        guard let runtimeDirectory, runtimeDirectory.hasPrefix("/") else { return nil }
        return runtimeDirectory + "/passkey-agent/agent.sock"
    }

    /// The software authenticator's state file, unless `--virtual-state` says otherwise.
    public var virtualAuthenticatorState: String { dataDirectory + "/virtual-authenticator.json" }
}
