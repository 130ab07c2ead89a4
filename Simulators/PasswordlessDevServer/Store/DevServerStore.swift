import Base64
import Crypto
import DevServerBase
import FoundationEssentials
import Logging
import WebAuthn

/// The devserver's state behind an actor: one writer, and every change
/// persisted (with a data directory) before it becomes visible. A change
/// whose write fails is dropped and the request fails with a 500, so memory
/// never runs ahead of disk.
package actor DevServerStore {
    private var state: StoreState
    private let file: ServerStoreFile?
    private let logger: Logger

    private init(state: StoreState, file: ServerStoreFile?, logger: Logger) {
        self.state = state
        self.file = file
        self.logger = logger
    }

    /// Opens the data directory's state, or creates fresh keys (and saves them
    /// there). Without a directory everything lives in memory.
    package static func open(dataDirectory: String?, appId: String, logger: Logger) throws(DevServerError) -> DevServerStore {
        guard let dataDirectory else {
            return DevServerStore(state: StoreState(keys: .generate(appId: appId)), file: nil, logger: logger)
        }
        let file = try ServerStoreFile(directory: dataDirectory)
        if let bytes = try file.load() {
            let state: StoreState
            do { state = try Self.decoder().decode(StoreState.self, from: Data(bytes)) } catch {
                throw .stateFile(path: file.path, reason: "not a devserver state file (\(Self.describe(error)))")
            }
            guard state.format == StoreState.currentFormat else {
                throw .stateFile(path: file.path, reason: "format \(state.format) is not the format \(StoreState.currentFormat) this devserver reads")
            }
            guard state.keys.appId == appId else {
                throw .stateFile(path: file.path, reason: "it belongs to app \"\(state.keys.appId)\"; pass --app-id \(state.keys.appId) or use another directory")
            }
            return DevServerStore(state: state, file: file, logger: logger)
        }
        let state = StoreState(keys: .generate(appId: appId))
        try file.save(Self.encode(state, for: file))
        return DevServerStore(state: state, file: file, logger: logger)
    }

    /// The app's keys; fixed for the life of the store.
    package var keys: AppKeys { state.keys }

    /// Called once the server has stopped: releases the data directory's lock.
    package func releaseDataDirectory() {
        file?.unlock()
    }

    // MARK: Reading

    func credential(id: [UInt8]) -> RegisteredCredential? {
        state.credentials.first { $0.credentialId.bytes == id }
    }

    func credentials(ofUser userId: String) -> [RegisteredCredential] {
        state.credentials.filter { $0.userId == userId }
    }

    func userId(forAliasHash hash: String) -> String? {
        state.aliases.first { $0.hash == hash }?.userId
    }

    package func aliases(ofUser userId: String) -> [StoredAlias] {
        state.aliases.filter { $0.userId == userId }
    }

    /// True when one of `hashes` belongs to a user other than `userId`.
    func aliasesConflict(_ hashes: [String], userId: String) -> Bool {
        state.aliases.contains { hashes.contains($0.hash) && $0.userId != userId }
    }

    struct UserSummary: Sendable {
        var userId: String
        var aliases: [StoredAlias]
        var credentialCount: Int
        var lastUsedAt: Date?
    }

    /// Users are whoever owns a credential or an alias, sorted by id.
    func users() -> [UserSummary] {
        var ids = Set(state.credentials.map(\.userId))
        ids.formUnion(state.aliases.map(\.userId))
        return ids.sorted().map { id in
            let credentials = state.credentials.filter { $0.userId == id }
            return UserSummary(userId: id, aliases: state.aliases.filter { $0.userId == id },
                               credentialCount: credentials.count, lastUsedAt: credentials.map(\.lastUsedAt).max())
        }
    }

    func userCount() -> Int {
        Set(state.credentials.map(\.userId)).union(state.aliases.map(\.userId)).count
    }

    // MARK: Changing

    /// The authorization server's signing keys, generated and saved the first time.
    package func oauthSigningKeys() throws -> SigningKeyMaterial {
        if let keys = state.oauthSigningKeys { return keys }
        let keys = try SigningKeyMaterial.generate()
        try commit { (state) throws(APIProblem) in state.oauthSigningKeys = keys }
        return keys
    }

    /// Stores a new credential and, when the register token named aliases,
    /// makes them the user's aliases — both or neither.
    func register(_ credential: RegisteredCredential, aliases: [StoredAlias]?) throws(APIProblem) {
        try commit { (state) throws(APIProblem) in
            if let owner = state.credentials.first(where: { $0.credentialId == credential.credentialId }) {
                throw .registrationFailed(owner.userId == credential.userId
                    ? "credentialId: this credential is already registered to this user."
                    : "credentialId: this credential is already registered to another user.")
            }
            if let aliases {
                try Self.replaceAliases(in: &state, userId: credential.userId, with: aliases)
            }
            state.credentials.append(credential)
        }
    }

    /// Replaces all of a user's aliases (the hosted `/alias` semantics).
    func setAliases(_ aliases: [StoredAlias], userId: String) throws(APIProblem) {
        try commit { (state) throws(APIProblem) in
            try Self.replaceAliases(in: &state, userId: userId, with: aliases)
        }
    }

    /// Records a successful sign-in: the new counter, backup state and time.
    func recordSignIn(credentialId: [UInt8], signCount: UInt32, backupState: Bool, at date: Date) throws(APIProblem) {
        try commit { (state) throws(APIProblem) in
            guard let index = state.credentials.firstIndex(where: { $0.credentialId.bytes == credentialId }) else {
                throw .unknownCredential(Base64URL.encode(credentialId))
            }
            state.credentials[index].signCount = signCount
            state.credentials[index].backupState = backupState
            state.credentials[index].lastUsedAt = date
        }
    }

    func deleteCredential(id: [UInt8]) throws(APIProblem) {
        try commit { (state) throws(APIProblem) in
            guard let index = state.credentials.firstIndex(where: { $0.credentialId.bytes == id }) else {
                throw .unknownCredential(Base64URL.encode(id))
            }
            state.credentials.remove(at: index)
        }
    }

    func deleteUser(_ userId: String) throws(APIProblem) {
        try commit { (state) throws(APIProblem) in
            state.credentials.removeAll { $0.userId == userId }
            state.aliases.removeAll { $0.userId == userId }
        }
    }

    /// Marks a single-use token spent. Throws if it already was; prunes ids
    /// whose tokens have expired, since expiry refuses those anyway.
    package func spend(tokenId: String, expiresAt: Date, now: Date, what: String) throws(APIProblem) {
        guard state.spentTokens[tokenId] == nil else { throw .tokenAlreadyUsed(what) }
        try commit { (state) throws(APIProblem) in
            state.spentTokens = state.spentTokens.filter { $0.value > now }
            state.spentTokens[tokenId] = expiresAt
        }
    }

    // MARK: Persistence

    private static func replaceAliases(in state: inout StoreState, userId: String,
                                       with aliases: [StoredAlias]) throws(APIProblem) {
        if state.aliases.contains(where: { alias in alias.userId != userId && aliases.contains { $0.hash == alias.hash } }) {
            throw .aliasConflict
        }
        state.aliases.removeAll { $0.userId == userId }
        state.aliases.append(contentsOf: aliases)
    }

    private func commit(_ change: (inout StoreState) throws(APIProblem) -> Void) throws(APIProblem) {
        var next = state
        try change(&next)
        if let file {
            do { try file.save(Self.encode(next, for: file)) } catch {
                logger.error("could not save the devserver state", metadata: ["error": "\(error)"])
                throw .internalError
            }
        }
        state = next
    }

    private static func encode(_ state: StoreState, for file: ServerStoreFile) throws(DevServerError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(date))
        }
        do { return try Array(encoder.encode(state)) } catch {
            throw .stateFile(path: file.path, reason: "the state could not be encoded")
        }
    }

    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date")
            }
            return date
        }
        return decoder
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? DecodingError { return RequestJSON.describe(error) }
        return "unreadable JSON"
    }
}

/// The hosted alias hash: base64(SHA-256(appId ‖ alias)).
enum AliasHash {
    static func of(_ alias: String, appId: String) -> String {
        Data(SHA256.hash(data: Array((appId + alias).utf8))).base64EncodedString()
    }
}
