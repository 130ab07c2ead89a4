import SecureFiles
import URLPolicy

/// What `passkey login` remembers about an account, so that `token get`
/// refreshes and a second `passkey login ACCOUNT` signs in again with no
/// flags: `$XDG_CONFIG_HOME/passkey-agent/accounts/ACCOUNT.toml`. Nothing
/// here is secret (the tokens are in the vault); the file is still 0600 in
/// a 0700 directory, since it says which services a person uses.
///
/// ```toml
/// issuer = "https://login.example.com/oauth2/default"
/// client_id = "cli"
/// scopes = ["openid", "profile", "email", "offline_access"]
/// flow = "browser"
/// subject = "00u1abcd"
/// needs_login = false
/// device_authorization_endpoint = "https://login.example.com/device"   # only when given to `passkey login`
/// revocation_endpoint = "https://login.example.com/revoke"             # likewise
/// idp = "0oa1bi"                  # `--idp`: the identity provider Okta routes to
/// username = "alice@example.com"  # okta-idx: the identifier the sign-in used
/// ```
public struct AccountSettings: Sendable, Equatable {
    public var issuer: String
    public var clientId: String
    public var scopes: [String]
    /// The flow that worked last (`browser`, `device`, `paste`).
    public var flow: String?
    /// The `sub` of the validated ID token: a login as someone else is refused without `--force`.
    public var subject: String?
    /// The provider refused the refresh token (`invalid_grant`): a new login is needed.
    public var needsLogin: Bool
    /// Endpoints given with `--device-authorization-endpoint` / `--revocation-endpoint`
    /// (the provider does not advertise them): used instead of discovery's.
    public var deviceAuthorizationEndpoint: String?
    public var revocationEndpoint: String?
    /// `--idp` (Okta's `idp` authorization parameter): later logins route there too.
    public var idp: String?
    /// okta-idx: the identifier the last sign-in gave, filled in again without asking.
    public var username: String?

    public init(issuer: String, clientId: String, scopes: [String], flow: String?, subject: String?, needsLogin: Bool = false,
                deviceAuthorizationEndpoint: String? = nil, revocationEndpoint: String? = nil, idp: String? = nil,
                username: String? = nil) {
        self.idp = idp
        self.username = username
        self.issuer = issuer
        self.clientId = clientId
        self.scopes = scopes
        self.flow = flow
        self.subject = subject
        self.needsLogin = needsLogin
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.revocationEndpoint = revocationEndpoint
    }

    /// The file's text: one key per line, strings as TOML basic strings.
    public var toml: String {
        var lines = ["# Written by `passkey login`; the tokens themselves are in the vault.",
                     "issuer = \(Self.quoted(issuer))",
                     "client_id = \(Self.quoted(clientId))",
                     "scopes = [\(scopes.map(Self.quoted).joined(separator: ", "))]"]
        if let flow { lines.append("flow = \(Self.quoted(flow))") }
        if let subject { lines.append("subject = \(Self.quoted(subject))") }
        lines.append("needs_login = \(needsLogin)")
        if let deviceAuthorizationEndpoint { lines.append("device_authorization_endpoint = \(Self.quoted(deviceAuthorizationEndpoint))") }
        if let revocationEndpoint { lines.append("revocation_endpoint = \(Self.quoted(revocationEndpoint))") }
        if let idp { lines.append("idp = \(Self.quoted(idp))") }
        if let username { lines.append("username = \(Self.quoted(username))") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads the file's text; nil members are errors with their line.
    public init(toml text: String) throws(AccountSettingsError) {
        let document: TOMLDocument
        do { document = try TOMLDocument(parsing: text) } catch { throw .unreadable(error.description) }
        guard let issuer = document.string("", "issuer"), !issuer.isEmpty else { throw .unreadable("`issuer` is missing") }
        guard let clientId = document.string("", "client_id"), !clientId.isEmpty else { throw .unreadable("`client_id` is missing") }
        var scopes: [String] = []
        if case .array(let values)? = document["", "scopes"] {
            for case .string(let scope) in values { scopes.append(scope) }
        }
        self.init(issuer: issuer, clientId: clientId, scopes: scopes, flow: document.string("", "flow"),
                  subject: document.string("", "subject"), needsLogin: document.boolean("", "needs_login") ?? false,
                  deviceAuthorizationEndpoint: document.string("", "device_authorization_endpoint"),
                  revocationEndpoint: document.string("", "revocation_endpoint"),
                  idp: document.string("", "idp"), username: document.string("", "username"))
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

public enum AccountSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The account's file does not parse (the reason has the line).
    case unreadable(String)
    /// The file cannot be read or written.
    case file(String)
    /// The account name makes a file name longer than the file system allows.
    case nameTooLong

    public var description: String {
        switch self {
        case .unreadable(let reason): return "the account's login settings cannot be read: \(reason)"
        case .file(let reason): return "the account's login settings: \(reason)"
        case .nameTooLong: return "the account name is too long for its settings file; choose a shorter one"
        }
    }
}

/// The directory of account files. Account names may hold any character but
/// control characters, so a file name is the name percent-encoded: letters,
/// digits, `-`, `_`, `.`, `@`, `+` stay (a leading `.` does not: no hidden
/// files, no `..`), every other byte of its UTF-8 is `%XX`.
public struct AccountSettingsStore: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    public func path(for account: String) throws(AccountSettingsError) -> String {
        var name = ""
        for (index, byte) in account.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "@"), UInt8(ascii: "+"):
                name.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: ".") where index > 0:
                name.append(".")
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                name += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        guard name.utf8.count <= 240 else { throw .nameTooLong }
        return directory + "/" + name + ".toml"
    }

    /// The account's settings, or nil when it has none (not made by `passkey login`).
    public func load(_ account: String) throws(AccountSettingsError) -> AccountSettings? {
        let path = try path(for: account)
        let bytes: [UInt8]?
        do { bytes = try SecureFile.read(path, limit: 64 * 1024) } catch { throw .file(error.reason(about: path)) }
        guard let bytes else { return nil }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .unreadable("\(path) is not UTF-8 text") }
        do {
            return try AccountSettings(toml: text)
        } catch .unreadable(let reason) {
            // The file named, so the person can fix it or remove it (`passkey login ACCOUNT` writes it anew).
            throw .unreadable("\(path): \(reason)")
        }
    }

    public func save(_ settings: AccountSettings, for account: String) throws(AccountSettingsError) {
        let path = try path(for: account)
        do {
            try SecureDirectory.create(directory)
            try SecureFile.write(Array(settings.toml.utf8), to: path)
        } catch {
            throw .file(error.reason(about: path))
        }
    }

    /// Every account with a readable settings file, by name (for listing
    /// while the vault is locked); files that are not ours or do not parse are left out.
    public func all() -> [(account: String, settings: AccountSettings)] {
        var found: [(account: String, settings: AccountSettings)] = []
        for name in DirectoryEntries.names(in: directory) ?? [] where name.hasSuffix(".toml") {
            guard let account = Self.account(fileName: String(name.dropLast(5))),
                  (try? path(for: account)) == directory + "/" + name,
                  let settings = try? load(account) else { continue }
            found.append((account, settings))
        }
        return found.sorted { $0.account < $1.account }
    }

    /// The account a file name (without `.toml`) stands for: `path(for:)` undone.
    static func account(fileName: String) -> String? {
        PercentEncoding.decode(Substring(fileName), plusIsSpace: false).flatMap { String(validating: $0, as: UTF8.self) }
    }

    public func remove(_ account: String) throws(AccountSettingsError) {
        let path = try path(for: account)
        do { try SecureFile.remove(path) } catch { throw .file(error.reason(about: path)) }
    }
}
