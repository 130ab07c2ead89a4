/// Where a passwordless.dev app lives and who it is, from config.toml's
/// `[passwordless]` table and the command line (which wins).
public struct PasswordlessSettings: Sendable, Equatable {
    public static let defaultAPIURL = "https://v4.passwordless.dev"

    public var apiURL: String
    public var apiKey: String
    public var rpId: String
    /// The origin the ceremony claims; `https://<rpId>` unless set, as the iOS SDK does.
    public var origin: String

    /// Merges command-line values over configured ones and applies the defaults.
    public init(apiURL: String?, apiKey: String?, rpId: String?, origin: String?) throws(PasswordlessError) {
        guard let apiKey, !apiKey.isEmpty else {
            throw .missingSetting("no passwordless.dev public API key: pass --api-key, or set api-key in the [passwordless] table of config.toml")
        }
        guard let rpId, !rpId.isEmpty else {
            throw .missingSetting("no relying party id: pass --rp-id, or set rp-id in the [passwordless] table of config.toml")
        }
        let url = apiURL ?? Self.defaultAPIURL
        self.apiURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.apiKey = apiKey
        self.rpId = rpId
        self.origin = origin ?? "https://\(rpId)"
    }
}
