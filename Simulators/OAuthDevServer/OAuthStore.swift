import DevServerBase
import FoundationEssentials

/// The authorization server's changing state — codes, refresh families,
/// revoked access tokens, device codes — in memory (docs/DEVSERVER.md). Codes,
/// refresh tokens and device codes are kept by their SHA-256, never as issued.
package actor OAuthStore {
    /// Each table holds at most this many entries; beyond it, new grants are
    /// refused (`temporarily_unavailable`) rather than growing without bound.
    static let maxEntries = 10_000
    /// Refresh token hashes (current and spent, of live families) at most.
    static let maxRefreshTokens = 200_000
    /// Spent codes and finished device codes are kept this long past expiry,
    /// so a late replay is recognised as a replay.
    package static let retention: TimeInterval = 600

    private var codes: [String: CodeRecord] = [:]
    private var families: [String: RefreshFamily] = [:]
    /// Every refresh token hash of a live family → the family.
    private var refreshTokens: [String: String] = [:]
    /// Revoked access tokens by `jti`, kept until they expire anyway.
    private var revokedAccessTokens: [String: Date] = [:]
    private var devices: [String: DeviceRecord] = [:]
    private var deviceByUserCode: [String: String] = [:]

    package init() {}

    package struct Full: Error {}

    // MARK: Codes

    package func issueCode(_ record: CodeRecord, now: Date) throws(Full) -> String {
        prune(now: now)
        guard codes.count < Self.maxEntries else { throw Full() }
        let code = OpaqueSecret.make()
        codes[OpaqueSecret.hash(code)] = record
        return code
    }

    enum CodeOutcome: Sendable {
        case unknown, expired, replayed
        case redeemed(CodeRecord)
    }

    /// Spends the code whatever happens next. A second presentation revokes
    /// what the first one issued.
    func redeemCode(_ code: String, now: Date) -> CodeOutcome {
        let key = OpaqueSecret.hash(code)
        guard var record = codes[key] else { return .unknown }
        if record.spent {
            record.presentedAgain = true
            codes[key] = record
            revokeIssued(by: record, now: now)
            return .replayed
        }
        record.spent = true
        codes[key] = record
        guard now < record.expiresAt else { return .expired }
        return .redeemed(record)
    }

    /// Records what a redeemed code issued; revokes it at once if the code was
    /// replayed in between.
    func recordIssued(byCode code: String, family: String?, accessToken jti: String, expiresAt: Date, now: Date) {
        let key = OpaqueSecret.hash(code)
        guard var record = codes[key] else { return }
        record.issuedFamily = family
        record.issuedAccessTokens[jti] = expiresAt
        codes[key] = record
        if record.presentedAgain { revokeIssued(by: record, now: now) }
    }

    private func revokeIssued(by record: CodeRecord, now: Date) {
        if let family = record.issuedFamily { revokeFamily(family) }
        for (jti, expiry) in record.issuedAccessTokens { revokedAccessTokens[jti] = expiry }
    }

    // MARK: Refresh families

    /// Starts a family; returns its id and first refresh token.
    func startFamily(_ authorization: Authorization, now: Date) throws(Full) -> (family: String, refreshToken: String) {
        prune(now: now)
        guard families.count < Self.maxEntries * 10, refreshTokens.count < Self.maxRefreshTokens else { throw Full() }
        let token = OpaqueSecret.make(), family = OpaqueSecret.make()
        families[family] = RefreshFamily(authorization: authorization, currentTokenHash: OpaqueSecret.hash(token),
                                         tokenHashes: [OpaqueSecret.hash(token)])
        refreshTokens[OpaqueSecret.hash(token)] = family
        return (family, token)
    }

    enum RefreshOutcome: Sendable {
        case unknown, replayed, full
        /// A scope beyond the original grant was asked for; nothing was spent.
        case widened
        case rotated(family: String, authorization: Authorization, refreshToken: String)
    }

    /// Rotates a refresh token: the presented one is spent and a new one
    /// issued. An earlier token of the family revokes the whole family.
    /// `requestedScopes`, when given, must lie within the original grant
    /// (RFC 6749 §6); it is checked before anything is spent.
    func rotate(_ token: String, clientId: String, requestedScopes: [String]?) -> RefreshOutcome {
        let key = OpaqueSecret.hash(token)
        guard let familyId = refreshTokens[key], var family = families[familyId],
              family.authorization.clientId == clientId else { return .unknown }
        guard family.currentTokenHash == key else {
            revokeFamily(familyId)
            return .replayed
        }
        if let requestedScopes, !Set(requestedScopes).isSubset(of: family.authorization.scopes) { return .widened }
        guard refreshTokens.count < Self.maxRefreshTokens else { return .full }
        let next = OpaqueSecret.make()
        family.currentTokenHash = OpaqueSecret.hash(next)
        family.tokenHashes.append(OpaqueSecret.hash(next))
        families[familyId] = family
        refreshTokens[OpaqueSecret.hash(next)] = familyId
        return .rotated(family: familyId, authorization: family.authorization, refreshToken: next)
    }

    /// Records an access token in its family. A family that is gone was
    /// revoked while the token was being signed: the token is revoked at once.
    func addAccessToken(_ jti: String, expiresAt: Date, family familyId: String, now: Date) {
        guard var family = families[familyId] else {
            revokedAccessTokens[jti] = expiresAt
            return
        }
        family.accessTokens = family.accessTokens.filter { $0.value > now }
        family.accessTokens[jti] = expiresAt
        families[familyId] = family
    }

    /// RFC 7009 for a refresh token: revokes its family and the family's
    /// access tokens. Tokens of another client are left alone.
    func revokeRefreshToken(_ token: String, clientId: String) -> Bool {
        guard let familyId = refreshTokens[OpaqueSecret.hash(token)], let family = families[familyId],
              family.authorization.clientId == clientId else { return false }
        revokeFamily(familyId)
        return true
    }

    func revokeAccessToken(jti: String, expiresAt: Date) {
        revokedAccessTokens[jti] = expiresAt
    }

    func isRevoked(jti: String) -> Bool { revokedAccessTokens[jti] != nil }

    private func revokeFamily(_ familyId: String) {
        guard let family = families.removeValue(forKey: familyId) else { return }
        for hash in family.tokenHashes { refreshTokens[hash] = nil }
        for (jti, expiry) in family.accessTokens { revokedAccessTokens[jti] = expiry }
    }

    // MARK: Device codes

    /// Stores a device authorization under a new device code and a fresh
    /// user code (8 letters from RFC 8628 §6.1's alphabet, unique among live ones).
    func issueDeviceCode(_ record: DeviceRecord, now: Date) throws(Full) -> (deviceCode: String, userCode: String) {
        prune(now: now)
        guard devices.count < Self.maxEntries else { throw Full() }
        var userCode = UserCode.generate()
        while deviceByUserCode[userCode] != nil { userCode = UserCode.generate() }
        var record = record
        record.userCode = userCode
        let deviceCode = OpaqueSecret.make()
        devices[OpaqueSecret.hash(deviceCode)] = record
        deviceByUserCode[userCode] = OpaqueSecret.hash(deviceCode)
        return (deviceCode, userCode)
    }

    /// The pending, unexpired device authorization a user code names.
    func pendingDevice(userCode: String, now: Date) -> DeviceRecord? {
        guard let key = deviceByUserCode[userCode], let record = devices[key], now < record.expiresAt,
              case .pending = record.status else { return nil }
        return record
    }

    /// Approves (`sub` given) or denies a pending device authorization.
    func decideDevice(userCode: String, sub: String?, now: Date) -> Bool {
        guard let key = deviceByUserCode[userCode], var record = devices[key], now < record.expiresAt,
              case .pending = record.status else { return false }
        record.status = sub.map { .approved(sub: $0, authTime: now) } ?? .denied
        devices[key] = record
        return true
    }

    enum PollOutcome: Sendable {
        case unknown, expired, pending, slowDown, denied, redeemed
        case approved(Authorization)
    }

    /// One poll of the token endpoint (RFC 8628 §3.5).
    func poll(deviceCode: String, clientId: String, now: Date) -> PollOutcome {
        let key = OpaqueSecret.hash(deviceCode)
        guard var record = devices[key], record.clientId == clientId else { return .unknown }
        guard now < record.expiresAt else { return .expired }
        switch record.status {
        case .denied: return .denied
        case .redeemed: return .redeemed
        case .approved(let sub, let authTime):
            record.status = .redeemed
            devices[key] = record
            return .approved(Authorization(clientId: clientId, sub: sub, scopes: record.scopes, authTime: authTime, nonce: nil))
        case .pending:
            defer { devices[key] = record }
            if let last = record.lastPoll, now.timeIntervalSince(last) < TimeInterval(record.interval) {
                record.interval = min(record.interval + 5, 3600)
                record.lastPoll = now
                return .slowDown
            }
            record.lastPoll = now
            return .pending
        }
    }

    // MARK: Housekeeping

    private func prune(now: Date) {
        let cutoff = now.addingTimeInterval(-Self.retention)
        codes = codes.filter { $0.value.expiresAt > cutoff }
        for (key, record) in devices where record.expiresAt <= cutoff {
            devices[key] = nil
            deviceByUserCode[record.userCode] = nil
        }
        revokedAccessTokens = revokedAccessTokens.filter { $0.value > now }
    }
}
