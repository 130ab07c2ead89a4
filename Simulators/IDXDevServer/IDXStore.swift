import Crypto
import DevServerBase
import FoundationEssentials
import OAuthDevServer
import WebAuthn

/// The IDX subset's state, in memory only (a restart forgets enrolled keys
/// and transactions): users by username and id, and transactions by the
/// SHA-256 of their stateHandle and of their interaction handle. Bounded:
/// beyond `maxTransactions` a new interaction is refused.
package actor IDXStore {
    static let maxTransactions = 10_000

    private var usersByName: [String: String] = [:]
    private var users: [String: IDXUser] = [:]
    private var transactions: [String: IDXTransactionRecord] = [:]
    /// The interaction handle's hash → the hash of its current stateHandle.
    private var interactions: [String: String] = [:]

    struct Full: Error {}

    package init(_ registrations: [IDXUserRegistration]) {
        for registration in registrations {
            let user = IDXUser(id: Self.oktaId(prefix: "00u"), username: registration.username,
                               passwordHash: registration.password.map { Array(SHA256.hash(data: Array($0.utf8))) },
                               passwordEnrollmentId: registration.password == nil ? nil : Self.oktaId(prefix: "lae"))
            users[user.id] = user
            usersByName[user.username] = user.id
        }
    }

    /// An Okta-shaped id: a three-letter prefix and 17 letters or digits
    /// (20 characters, which also reads as base64url).
    static func oktaId(prefix: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        // 62 letters: bytes below 248 map evenly (248 = 4 × 62).
        var out = Array(prefix.utf8)
        while out.count < 20 {
            for byte in AppKeys.randomBytes(32) where byte < 248 && out.count < 20 {
                out.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Users

    func user(named username: String) -> IDXUser? { usersByName[username].flatMap { users[$0] } }

    func user(id: String) -> IDXUser? { users[id] }

    /// True when the password is the user's (compared as SHA-256, in constant time).
    func checkPassword(_ password: String, userId: String) -> Bool {
        guard let expected = users[userId]?.passwordHash else { return false }
        let presented = Array(SHA256.hash(data: Array(password.utf8)))
        return zip(presented, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    enum EnrollOutcome: Sendable { case enrolled(IDXWebAuthnEnrollment), credentialTaken, tooMany }

    /// Adds a security key to a user; a credential id belongs to one user only.
    func enroll(userId: String, credentialId: [UInt8], publicKey: COSEKey, signCount: UInt32, aaguid: [UInt8],
                backupEligible: Bool) -> EnrollOutcome {
        guard !users.values.contains(where: { $0.enrollments.contains { $0.credentialId == credentialId } }) else {
            return .credentialTaken
        }
        guard var user = users[userId], user.enrollments.count < IDXUser.maxEnrollments else { return .tooMany }
        let enrollment = IDXWebAuthnEnrollment(id: Self.oktaId(prefix: "fwf"), credentialId: credentialId, publicKey: publicKey,
                                               signCount: signCount, aaguid: aaguid, backupEligible: backupEligible)
        user.enrollments.append(enrollment)
        users[userId] = user
        return .enrolled(enrollment)
    }

    func recordSignCount(userId: String, credentialId: [UInt8], _ count: UInt32) {
        guard var user = users[userId], let index = user.enrollments.firstIndex(where: { $0.credentialId == credentialId }) else { return }
        user.enrollments[index].signCount = count
        users[userId] = user
    }

    // MARK: Transactions

    static func hash(_ secret: String) -> String { OpaqueSecret.hash(secret) }

    /// A new transaction for an interaction; returns its interaction handle.
    func start(_ interaction: IDXInteraction, expiresAt: Date, now: Date) throws(Full) -> String {
        prune(now: now)
        guard transactions.count < Self.maxTransactions else { throw Full() }
        let handle = OpaqueSecret.make()
        let stateHandle = Self.newStateHandle()
        transactions[Self.hash(stateHandle)] = IDXTransactionRecord(interaction: interaction, stateHandle: stateHandle, expiresAt: expiresAt)
        interactions[Self.hash(handle)] = Self.hash(stateHandle)
        return handle
    }

    /// `02.id.` and 32 random bytes, base64url: opaque, as Okta's are.
    static func newStateHandle() -> String { "02.id." + OpaqueSecret.make() }

    enum Lookup: Sendable { case unknown, expired, found(IDXTransactionRecord) }

    func transaction(stateHandle: String, now: Date) -> Lookup {
        guard stateHandle.utf8.count <= 256, let transaction = transactions[Self.hash(stateHandle)] else { return .unknown }
        guard now < transaction.expiresAt else { return .expired }
        return .found(transaction)
    }

    func transaction(interactionHandle: String, now: Date) -> Lookup {
        guard interactionHandle.utf8.count <= 256, let key = interactions[Self.hash(interactionHandle)] else { return .unknown }
        guard let transaction = transactions[key] else { return .expired }
        guard now < transaction.expiresAt else { return .expired }
        return .found(transaction)
    }

    /// Moves a live transaction to `step` when it is still at `expected`, so
    /// two concurrent answers cannot both pass one challenge. Returns the
    /// updated transaction, nil when it expired or moved on meanwhile.
    func advance(stateHandle: String, from expected: IDXRemediationStep, to step: IDXRemediationStep, now: Date) -> IDXTransactionRecord? {
        let key = Self.hash(stateHandle)
        guard var transaction = transactions[key], now < transaction.expiresAt, transaction.step == expected else { return nil }
        transaction.step = step
        transactions[key] = transaction
        return transaction
    }

    /// `cancel`: the old stateHandle ends; the interaction goes on under a new
    /// one, back at `identify`, with a fresh lifetime.
    func restart(stateHandle: String, expiresAt: Date, now: Date) -> IDXTransactionRecord? {
        let key = Self.hash(stateHandle)
        guard let old = transactions.removeValue(forKey: key), now < old.expiresAt else { return nil }
        let fresh = IDXTransactionRecord(interaction: old.interaction, stateHandle: Self.newStateHandle(), expiresAt: expiresAt)
        transactions[Self.hash(fresh.stateHandle)] = fresh
        for (handle, stateKey) in interactions where stateKey == key { interactions[handle] = Self.hash(fresh.stateHandle) }
        return fresh
    }

    private func prune(now: Date) {
        // Expired transactions stay a while, so a late request is told "expired".
        let cutoff = now.addingTimeInterval(-OAuthStore.retention)
        transactions = transactions.filter { $0.value.expiresAt > cutoff }
        interactions = interactions.filter { transactions[$0.value] != nil }
    }
}
