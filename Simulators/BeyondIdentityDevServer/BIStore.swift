import DevServerBase
import FoundationEssentials
import Hexadecimal

/// The IdP's state, in memory only (a restart forgets identities and
/// passkeys; docs/DEVSERVER.md). Codes and binding tokens are kept by their
/// SHA-256. Every table is bounded: beyond `maxEntries` a new entry is refused.
package actor BIStore {
    static let maxEntries = 10_000
    /// Spent transactions and codes are kept this long past expiry, so a late
    /// replay is named as one.
    static let retention: TimeInterval = 600

    private var identities: [String: BIIdentity] = [:]
    private var passkeys: [[UInt8]: BIPasskey] = [:]
    private var transactions: [String: BITransaction] = [:]
    private var codes: [String: BICode] = [:]
    private var jobs: [String: BIBindingJob] = [:]

    package init() {}

    struct Full: Error {}

    static func newId() -> String { Hexadecimal.encode(AppKeys.randomBytes(16)) }

    // MARK: Identities and passkeys

    enum AddIdentityOutcome: Sendable { case added(BIIdentity), usernameTaken, full }

    func addIdentity(displayName: String, username: String, email: String?) -> AddIdentityOutcome {
        guard !identities.values.contains(where: { $0.username == username }) else { return .usernameTaken }
        guard identities.count < Self.maxEntries else { return .full }
        let identity = BIIdentity(id: Self.newId(), displayName: displayName, username: username, email: email)
        identities[identity.id] = identity
        return .added(identity)
    }

    func identity(id: String) -> BIIdentity? { identities[id] }

    func passkey(credentialId: [UInt8]) -> BIPasskey? { passkeys[credentialId] }

    /// Up to `limit` credential ids of the realm's passkeys; nil when there are more.
    func passkeyIds(limit: Int) -> [[UInt8]]? {
        passkeys.count <= limit ? passkeys.keys.sorted { $0.lexicographicallyPrecedes($1) } : nil
    }

    func passkeyIds(ofIdentity identityId: String) -> [[UInt8]] {
        passkeys.values.filter { $0.identityId == identityId }.map(\.credentialId)
    }

    func recordSignCount(credentialId: [UInt8], _ count: UInt32) {
        passkeys[credentialId]?.signCount = count
    }

    // MARK: Transactions

    func addTransaction(_ transaction: BITransaction, now: Date) throws(Full) -> String {
        prune(now: now)
        guard transactions.count < Self.maxEntries else { throw Full() }
        let id = Self.newId()
        transactions[id] = transaction
        return id
    }

    enum SpendOutcome: Sendable { case unknown, wrongJTI, used, expired, spent(BITransaction) }

    /// Spends a transaction on its first presentation with the right `jti`,
    /// whatever the proof turns out to be: a transaction is proved once.
    func spendTransaction(_ id: String, jti: String, now: Date) -> SpendOutcome {
        guard var transaction = transactions[id] else { return .unknown }
        guard transaction.jti == jti else { return .wrongJTI }
        guard !transaction.used else { return .used }
        guard now < transaction.expiresAt else { return .expired }
        transaction.used = true
        transactions[id] = transaction
        return .spent(transaction)
    }

    // MARK: Codes

    func issueCode(_ record: BICode, now: Date) throws(Full) -> String {
        prune(now: now)
        guard codes.count < Self.maxEntries else { throw Full() }
        let code = OpaqueSecret.make()
        codes[OpaqueSecret.hash(code)] = record
        return code
    }

    enum CodeOutcome: Sendable { case unknown, expired, replayed, redeemed(BICode) }

    /// Spends the code whatever happens next.
    func redeemCode(_ code: String, now: Date) -> CodeOutcome {
        let key = OpaqueSecret.hash(code)
        guard var record = codes[key] else { return .unknown }
        guard !record.spent else { return .replayed }
        record.spent = true
        codes[key] = record
        guard now < record.expiresAt else { return .expired }
        return .redeemed(record)
    }

    // MARK: Binding jobs

    func addJob(_ job: BIBindingJob, now: Date) throws(Full) -> String {
        prune(now: now)
        guard jobs.count < Self.maxEntries else { throw Full() }
        let id = Self.newId()
        jobs[id] = job
        return id
    }

    enum JobOutcome: Sendable { case unknown, expired, complete, job(BIBindingJob) }

    /// The job named by id, identity and token (compared by hash).
    func job(_ id: String, identityId: String?, token: String, now: Date) -> JobOutcome {
        guard let job = jobs[id], job.tokenHash == OpaqueSecret.hash(token),
              identityId == nil || identityId == job.identityId else { return .unknown }
        if case .complete = job.state { return .complete }
        guard now < job.expiresAt else { return .expired }
        return .job(job)
    }

    func beginJob(_ id: String, challenge: [UInt8]) {
        jobs[id]?.state = .begun(challenge: challenge)
    }

    /// The begun registration's challenge, taken: one complete attempt per
    /// begin, whatever its outcome (a failed attempt begins again).
    func takeChallenge(_ id: String) -> [UInt8]? {
        guard let job = jobs[id], case .begun(let challenge) = job.state else { return nil }
        jobs[id]?.state = .linkSent
        return challenge
    }

    /// Completes a job once and stores its passkey; false when the job was
    /// completed meanwhile or the credential id is taken.
    func completeJob(_ id: String, passkey: BIPasskey) -> Bool {
        guard let job = jobs[id], passkeys[passkey.credentialId] == nil, passkeys.count < Self.maxEntries else { return false }
        if case .complete = job.state { return false }
        jobs[id]?.state = .complete
        passkeys[passkey.credentialId] = passkey
        return true
    }

    // MARK: Housekeeping

    private func prune(now: Date) {
        let cutoff = now.addingTimeInterval(-Self.retention)
        transactions = transactions.filter { $0.value.expiresAt > cutoff }
        codes = codes.filter { $0.value.expiresAt > cutoff }
        jobs = jobs.filter { $0.value.expiresAt > cutoff }
    }
}
