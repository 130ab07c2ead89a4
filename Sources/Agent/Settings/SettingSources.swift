/// Where a setting in force came from, as `passkey status` names it.
public enum SettingSource: String, Sendable, Equatable {
    /// Nothing set it: the documented default applies.
    case `default`
    /// `config.toml`.
    case configFile = "config.toml"
    /// The agent's command line (`passkey-agent --idle-timeout …`).
    case flag
}

extension Settings {
    /// Each setting config.toml can hold, named `table.key` as the file
    /// spells it, with the value the file gives (nil: the file does not set
    /// it, so a default or a flag decides). Values are written as a person
    /// would read them back: integers in decimal, lists comma-separated.
    /// The `[invoke.application.NAME]` and `[credential.NAME]` tables
    /// follow, one entry per key the file sets (they have no defaults).
    public var fileValues: [(name: String, value: String?)] {
        var values: [(name: String, value: String?)] = [
            ("agent.idle-timeout", agent.idleTimeoutSeconds.map(String.init)),
            ("device.default", device.defaultDevice),
            ("device.virtual-state", device.virtualState),
            ("passwordless.api-url", passwordless.apiURL),
            // A passwordless.dev public key: made to be embedded in web pages, not a secret.
            ("passwordless.api-key", passwordless.apiKey),
            ("passwordless.rp-id", passwordless.rpId),
            ("passwordless.origin", passwordless.origin),
            ("invoke.trusted-hosts", invoke.trustedHosts.isEmpty ? nil : invoke.trustedHosts.joined(separator: ", ")),
        ]
        for application in invoke.applications {
            let table = Self.applicationTablePrefix + application.name
            values.append((table + ".issuer", application.issuer))
            if let rpIds = application.rpIds { values.append((table + ".rp-ids", rpIds.joined(separator: ", "))) }
            if !application.hosts.isEmpty { values.append((table + ".hosts", application.hosts.joined(separator: ", "))) }
        }
        for credential in credentials {
            let table = Self.credentialTablePrefix + credential.name
            for (key, value) in [("url", credential.url), ("host", credential.host), ("account", credential.account),
                                 ("username", credential.username)] {
                if let value { values.append((table + "." + key, value)) }
            }
        }
        return values
    }
}
