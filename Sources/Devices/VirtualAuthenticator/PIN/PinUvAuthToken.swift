import Crypto
import Locking

/// pinUvAuthToken permissions (CTAP 2.1 §6.5.5.7).
struct PinUvAuthPermissions: OptionSet {
    let rawValue: UInt8

    static let makeCredential = PinUvAuthPermissions(rawValue: 0x01)
    static let getAssertion = PinUvAuthPermissions(rawValue: 0x02)
    static let credentialManagement = PinUvAuthPermissions(rawValue: 0x04)
    static let bioEnrollment = PinUvAuthPermissions(rawValue: 0x08)
    static let largeBlobWrite = PinUvAuthPermissions(rawValue: 0x10)
    static let authenticatorConfiguration = PinUvAuthPermissions(rawValue: 0x20)

    /// What this authenticator can grant; other bits → UNAUTHORIZED_PERMISSION.
    static let supported: PinUvAuthPermissions = [.makeCredential, .getAssertion, .credentialManagement]
    /// Permissions that are meaningless without an RP ID binding.
    static let needRPID: PinUvAuthPermissions = [.makeCredential, .getAssertion]
}

/// The authenticator's one pinUvAuthToken and its state (CTAP 2.1 §6.5.2.1),
/// shared by both PIN/UV auth protocols. Lives only until power-off.
struct PinUvAuthTokenState {
    /// A token unused this long after issue stops working (§6.5.2.1 initial usage time limit).
    static let initialUsageLimitNanoseconds: UInt64 = 30_000_000_000
    /// And no token lives longer than this (§6.5.2.1 max usage time period).
    static let maximumLifetimeNanoseconds: UInt64 = 600_000_000_000

    private(set) var token: SymmetricKey = SymmetricKey(size: .bits256)
    private(set) var inUse = false
    private(set) var permissions: PinUvAuthPermissions = []
    private(set) var rpId: String?
    private(set) var userVerified = false
    private(set) var userPresent = false
    private var issuedAt: UInt64 = 0
    private var used = false

    /// The token bytes, to be encrypted to the platform.
    var tokenBytes: [UInt8] { token.withUnsafeBytes { Array($0) } }

    /// resetPinUvAuthToken + beginUsingPinUvAuthToken: a fresh token, so any
    /// token handed out before stops working.
    mutating func issue(permissions: PinUvAuthPermissions, rpId: String?, userPresent: Bool) {
        token = SymmetricKey(size: .bits256)
        inUse = true
        self.permissions = permissions
        self.rpId = rpId
        userVerified = true
        self.userPresent = userPresent
        issuedAt = MonotonicClock.now()
        used = false
    }

    /// Invalidates the token (PIN change, reset, timer expiry).
    mutating func revoke() {
        token = SymmetricKey(size: .bits256)
        inUse = false
        permissions = []
        rpId = nil
        userVerified = false
        userPresent = false
    }

    /// The usage timer observer, run before every command.
    mutating func expireIfStale(now: UInt64 = MonotonicClock.now()) {
        guard inUse else { return }
        let age = now &- issuedAt
        if age > Self.maximumLifetimeNanoseconds || (!used && age > Self.initialUsageLimitNanoseconds) {
            revoke()
        }
    }

    /// Checks pinUvAuthParam = authenticate(token, message) for a request.
    mutating func verify(message: [UInt8], param: [UInt8], protocol version: PinUvAuthProtocol) -> Bool {
        guard inUse, version.verify(key: token, message: message, signature: param) else { return false }
        used = true
        return true
    }

    /// Checks the token may be used for `permission` on `rpId`, binding it to
    /// `rpId` if it was issued without one (§6.5.5.7 "permissions RP ID").
    mutating func authorize(_ permission: PinUvAuthPermissions, rpId requested: String?) throws(CTAPStatus) {
        guard permissions.contains(permission), userVerified else { throw .pinAuthInvalid }
        guard let requested else { return }
        if let bound = rpId {
            guard bound == requested else { throw .pinAuthInvalid }
        } else {
            rpId = requested
        }
    }

    /// Checks a credential-management request that must not be bound to an RP.
    func requireNoRPBinding() throws(CTAPStatus) {
        if rpId != nil { throw .pinAuthInvalid }
    }

    /// Checks a credential-management request for one RP (by its hash).
    func requireRPBinding(allowing rpIdHash: [UInt8]) throws(CTAPStatus) {
        guard let rpId else { return }
        guard Array(SHA256.hash(data: Array(rpId.utf8))) == rpIdHash else { throw .pinAuthInvalid }
    }

    /// After makeCredential/getAssertion collected presence with this token:
    /// clearUserPresentFlag, clearUserVerifiedFlag, clearPinUvAuthTokenPermissionsExceptLbw.
    mutating func consumeAfterUse() {
        userPresent = false
        userVerified = false
        permissions = permissions.intersection(.largeBlobWrite)
    }

    /// The user-present flag is single use.
    mutating func takeUserPresent() -> Bool {
        defer { userPresent = false }
        return inUse && userPresent
    }
}
