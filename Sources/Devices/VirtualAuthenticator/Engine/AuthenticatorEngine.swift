import CBOR
import Crypto
import FoundationEssentials
import Locking

/// The CTAP2 device model: all state, and the dispatch of one request at a time.
///
/// Not thread-safe by itself; `CTAP2Authenticator` owns it behind a mutex.
/// Each command lives in its own file under Commands/ as an extension.
final class AuthenticatorEngine {
    /// The largest CTAP message (command byte excluded) this authenticator takes:
    /// what one CTAPHID message can carry (57 + 128 × 59 bytes, minus the command byte).
    static let maximumMessageSize = 7609 - 1
    /// CTAP 2.1 §8: CBOR nesting is limited to four levels.
    static let decodingLimits = CBORDecodingLimits(maxBytes: maximumMessageSize, maxDepth: 4, maxItems: 2048)

    let configuration: VirtualAuthenticatorConfiguration
    private let stateFile: (any AuthenticatorStateStorage)?
    private let diagnostics: Diagnostics

    /// Persistent state; changed only through `commit` (or `nextSignatureCount`).
    private(set) var state: AuthenticatorState

    // Volatile state: gone at power-off, as on a real key.
    var keyAgreement = KeyAgreementKeys()
    var token = PinUvAuthTokenState()
    var consecutivePINMismatches = 0
    var pendingAssertions: PendingAssertions?
    var pendingEnumeration: PendingEnumeration?
    var unwrapCache = UnwrapCache()
    /// The clock of power-up and the reset window: CLOCK_MONOTONIC, or a
    /// test's own, which moves past the window without waiting it out.
    let resetClock: @Sendable () -> UInt64
    let poweredUpAt: UInt64

    /// `store`, when given, holds the state instead of `configuration.statePath` (which must then be nil).
    init(configuration: VirtualAuthenticatorConfiguration, diagnostics: Diagnostics,
         store: (any AuthenticatorStateStore)? = nil,
         resetClock: @escaping @Sendable () -> UInt64 = MonotonicClock.now) throws(VirtualAuthenticatorError) {
        self.configuration = try configuration.validated()
        self.diagnostics = diagnostics
        self.resetClock = resetClock
        if let store {
            guard configuration.statePath == nil else {
                throw .invalidConfiguration("statePath must be nil when a state store is given")
            }
            let hosted = HostedAuthenticatorState(store)
            state = try hosted.loadOrCreate { AuthenticatorState.fresh() }
            stateFile = hosted
        } else if let path = configuration.statePath {
            let file = try AuthenticatorStateFile(path: path)
            state = try file.loadOrCreate { AuthenticatorState.fresh() }
            stateFile = file
        } else {
            state = .fresh()
            stateFile = nil
        }
        poweredUpAt = resetClock()
    }

    // MARK: Requests

    /// Runs one CTAP2 request (command byte ‖ CBOR parameters) and returns the
    /// response (status byte ‖ CBOR). Never traps on any input.
    func process(_ request: [UInt8], interaction: SimulatedUser) -> [UInt8] {
        guard let commandByte = request.first else { return [CTAPStatus.invalidLength.rawValue] }
        let command = CTAPCommand(rawValue: commandByte)
        token.expireIfStale()
        // Stateful command sequences die on any other command (CTAP 2.1 §6.3, §6.8).
        if command != .getNextAssertion { pendingAssertions = nil }
        if command != .credentialManagement && command != .credentialManagementPreview { pendingEnumeration = nil }
        guard let command else { return [CTAPStatus.invalidCommand.rawValue] }
        guard request.count - 1 <= Self.maximumMessageSize else { return [CTAPStatus.requestTooLarge.rawValue] }

        do throws(CTAPStatus) {
            try exclusively {}  // adopts what another process wrote since the last request
            var parameters: CBOR?
            if request.count > 1 {
                do {
                    parameters = try CBOR.decode(Array(request[1...]), limits: Self.decodingLimits)
                } catch {
                    throw CTAPStatus.invalidCBOR
                }
            }
            let map = try RequestMap(parameters)
            let body = try dispatch(command, map, interaction)
            var response: [UInt8] = [CTAPStatus.ok.rawValue]
            if let body {
                response.reserveCapacity(256)
                body.encode(into: &response)
            }
            return response
        } catch {
            return [error.rawValue]
        }
    }

    private func dispatch(_ command: CTAPCommand, _ request: RequestMap,
                          _ interaction: SimulatedUser) throws(CTAPStatus) -> CBOR? {
        switch command {
        case .getInfo: return getInfo()
        case .makeCredential: return try makeCredential(request, interaction)
        case .getAssertion: return try getAssertion(request, interaction)
        case .getNextAssertion: return try getNextAssertion()
        case .clientPIN: return try clientPIN(request, interaction)
        case .reset: try reset(interaction); return nil
        case .selection: try selection(interaction); return nil
        case .credentialManagement, .credentialManagementPreview: return try credentialManagement(request)
        }
    }

    // MARK: Persistence

    /// Applies `change` to a copy of the state as the file has it now, writes
    /// the copy, and only then adopts it: if the write fails, nothing changed
    /// and the request fails with OTHER.
    func commit(_ change: (inout AuthenticatorState) throws(CTAPStatus) -> Void) throws(CTAPStatus) {
        try exclusively { () throws(CTAPStatus) in
            var next = state
            try change(&next)
            try write(next.persisted())
            state = next
        }
    }

    /// Replaces the whole state (authenticatorReset); the signature counter carries on.
    func replaceState(with fresh: AuthenticatorState) throws(CTAPStatus) {
        try exclusively { () throws(CTAPStatus) in
            var fresh = fresh
            fresh.counter = state.counter
            try write(fresh.persisted())
            state = fresh
        }
    }

    /// The next signature counter value; writes the state file only when a new
    /// block of values must be reserved (see SignatureCounter). Under the lock,
    /// so a block another process reserved meanwhile is skipped.
    func nextSignatureCount() throws(CTAPStatus) -> UInt32 {
        try exclusively { () throws(CTAPStatus) in
            var counter = state.counter
            let snapshot = state
            let value = try counter.next { (ceiling) throws(CTAPStatus) in
                try write(snapshot.persisted(counterCeiling: ceiling))
            }
            state.counter = counter
            return value
        }
    }

    /// Runs `body` holding the state file's lock, after adopting the state as
    /// the file has it: the agent and `passkey --no-agent` may share the file,
    /// and both must see each other's credentials and counters (AuthenticatorStateFile).
    private func exclusively<T>(_ body: () throws(CTAPStatus) -> T) throws(CTAPStatus) -> T {
        guard let stateFile else { return try body() }
        do {
            try stateFile.lockExclusively()
        } catch {
            diagnostics.recordWrite(error: error)
            throw .other
        }
        defer { stateFile.unlock() }
        do {
            if let latest = try stateFile.changedState() { adopt(latest) }
        } catch {
            diagnostics.recordWrite(error: error)
            throw .other
        }
        return try body()
    }

    /// Takes over a state another process wrote. The counter keeps the higher
    /// reservation (at an equal ceiling the rest of our block is ours alone);
    /// a new master secret (a Reset elsewhere) voids cached ids and pending
    /// sequences, and it or a new PIN voids the PIN token.
    private func adopt(_ latest: AuthenticatorState) {
        var latest = latest
        if latest.counter.ceiling <= state.counter.ceiling { latest.counter = state.counter }
        let resetElsewhere = latest.masterSecret != state.masterSecret
        let pinChanged = latest.pin != state.pin
        state = latest
        if resetElsewhere {
            unwrapCache.removeAll()
            pendingAssertions = nil
            pendingEnumeration = nil
        }
        if resetElsewhere || pinChanged { token.revoke() }
    }

    private func write(_ document: PersistedState) throws(CTAPStatus) {
        guard let stateFile else { return }
        do {
            try stateFile.save(document)
            diagnostics.recordWrite(error: nil)
        } catch {
            diagnostics.recordWrite(error: error)
            throw .other
        }
    }

    // MARK: Credentials

    /// The credential `id` names for `rpId`: a discoverable one, or an intact
    /// wrapped id of ours bound to this RP. Anything else is "not found".
    func resolveCredential(id: [UInt8], rpId: String, rpIdHash: [UInt8]) -> ResolvedCredential? {
        if let discoverable = state.discoverable(id: id, rpId: rpId) {
            return ResolvedCredential(discoverable: discoverable)
        }
        if let cached = unwrapCache.lookup(id: id, rpIdHash: rpIdHash) { return cached }
        guard let wrapped = state.wrapper.unwrap(id, rpIdHash: rpIdHash) else { return nil }
        let resolved = ResolvedCredential(id: id, wrapped: wrapped)
        unwrapCache.store(resolved, rpIdHash: rpIdHash)
        return resolved
    }

    /// Whether some form of user verification protects this authenticator
    /// (CTAP 2.1 §6.1.2: a PIN is set, or built-in UV is enabled).
    var isProtectedByUserVerification: Bool { state.pin != nil || configuration.builtInUV }
}

/// SHA-256 of a text, as rpIdHash is computed from an RP ID.
func sha256(_ text: String) -> [UInt8] { Array(SHA256.hash(data: Array(text.utf8))) }
