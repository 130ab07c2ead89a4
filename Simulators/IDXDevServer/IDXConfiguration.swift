import DevServerBase
import FoundationEssentials
import SecureFiles

/// The Okta Identity Engine (IDX) subset's settings (docs/DEVSERVER.md
/// "Okta Identity Engine"): its users, how long a transaction's stateHandle
/// lives, and which RP ID and origins its security keys use.
public struct IDXConfiguration: Sendable {
    /// The users who can sign in through IDX. A user without a security key
    /// enrolls one at their first sign-in.
    public var users: [IDXUserRegistration]
    /// How long a stateHandle (and the interaction behind it) can be used.
    public var stateLifetime: Duration
    /// The security keys' RP ID; nil means the issuer's host (127.0.0.1).
    /// When set, `rp.id` and `rpId` are sent; otherwise the client derives it
    /// from `u2fParams.appid` / `extensions.appid`, as from real Okta.
    public var rpId: String?
    /// Origins `clientDataJSON.origin` may name besides the issuer's origin.
    public var origins: [String]
    /// Whether the security key's steps ask for user verification
    /// (`required`: a PIN-protected key needs its PIN) or only prefer it.
    public var userVerificationRequired: Bool

    public init(users: [IDXUserRegistration] = [], stateLifetime: Duration = .seconds(600), rpId: String? = nil,
                origins: [String] = [], userVerificationRequired: Bool = false) {
        self.userVerificationRequired = userVerificationRequired
        self.users = users
        self.stateLifetime = stateLifetime
        self.rpId = rpId
        self.origins = origins
    }

    static let maxUsers = 1000

    package func validate() throws(DevServerError) {
        let seconds = stateLifetime.components.seconds
        guard seconds >= 1, seconds <= Int64(Lifetimes.maxSeconds) else {
            throw .invalidConfiguration("IDX state lifetime \(seconds) s", reason: "use 1 to \(Lifetimes.maxSeconds) seconds")
        }
        guard users.count <= Self.maxUsers else {
            throw .invalidConfiguration("IDX users (\(users.count))", reason: "give at most \(Self.maxUsers)")
        }
        var seen: Set<String> = []
        for user in users where !seen.insert(user.username).inserted {
            throw .invalidConfiguration("IDX user \"\(user.username)\"", reason: "it is given twice")
        }
        if let rpId, !AllowList.isValidRpId(rpId) {
            throw .invalidConfiguration("IDX RP ID \"\(rpId.prefix(200))\"", reason: "use a lowercase domain such as login.passkey.test")
        }
        for origin in origins {
            if let reason = AllowList.problem(withOrigin: origin) {
                throw .invalidConfiguration("IDX origin \"\(origin.prefix(200))\"", reason: reason)
            }
        }
    }
}

/// A user the IDX subset knows: a username and, optionally, a password (the
/// password authenticator). Passwords come from code or a users file, never
/// from the command line.
public struct IDXUserRegistration: Sendable, Equatable {
    public let username: String
    public let password: String?

    public init(username: String, password: String? = nil) throws(DevServerError) {
        guard Self.isValidUsername(username) else {
            throw .invalidConfiguration("IDX username \"\(username.prefix(80))\"",
                                        reason: "use 1 to 128 printable characters without ':' or spaces at either end")
        }
        if let password {
            guard (1...256).contains(password.utf8.count),
                  !password.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .invalidConfiguration("the password of IDX user \"\(username)\"", reason: "use 1 to 256 printable characters")
            }
        }
        self.username = username
        self.password = password
    }

    /// Reads a users file (below). It holds passwords, so it must be ours
    /// and private (0600), as the data directory's state file must.
    public static func readUsersFile(_ path: String) throws(DevServerError) -> [IDXUserRegistration] {
        let bytes: [UInt8]?
        do { bytes = try SecureFile.readPrivate(path, limit: 1 << 20) } catch {
            throw .invalidConfiguration("IDX users file", reason: error.description)
        }
        guard let bytes else { throw .invalidConfiguration("IDX users file \(path)", reason: "it does not exist") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidConfiguration("IDX users file \(path)", reason: "it is not UTF-8")
        }
        return try parseUsersFile(text)
    }

    /// The users of a users file: one per line, `NAME` or `NAME:PASSWORD`;
    /// blank lines and lines starting with `#` are skipped. Errors name the
    /// line, never the password.
    public static func parseUsersFile(_ text: String) throws(DevServerError) -> [IDXUserRegistration] {
        var users: [IDXUserRegistration] = []
        // "\r\n" is one Character, a newline like "\n".
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.allSatisfy(\.isWhitespace) || line.hasPrefix("#") { continue }
            let name: Substring, password: Substring?
            if let colon = line.firstIndex(of: ":") {
                name = line[..<colon]
                password = line[line.index(after: colon)...]
            } else {
                name = line
                password = nil
            }
            do {
                users.append(try IDXUserRegistration(username: String(name), password: password.map(String.init)))
            } catch {
                throw .invalidConfiguration("IDX users file, line \(index + 1)", reason: "use NAME or NAME:PASSWORD (\(error))")
            }
        }
        return users
    }

    static func isValidUsername(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count) && !text.contains(":") && text.trimmingCharacters(in: .whitespaces) == text
            && !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}
