import FoundationEssentials
import Locking
import Reports
import Tokens
import WebAuthnJSON

/// The security key's part of an IDX sign-in, which whoever runs the
/// sign-in provides (the agent: its device broker, the PIN, the person's
/// touch). OktaIDX builds the options and sends the answers; it never
/// touches a device.
public protocol IDXKeyCeremony: Sendable {
    /// `navigator.credentials.create()` at `origin` (the issuer's), for `enroll-authenticator`.
    func create(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String) async throws -> RegistrationResponseJSON
    /// `navigator.credentials.get()` at `origin`, for `challenge-authenticator`.
    func get(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String) async throws -> AuthenticationResponseJSON
}

/// Where a sign-in stands after a call: a form for the person, tokens, or a
/// hand-over to the browser.
public enum IDXProgress: Sendable {
    /// A form the person fills (its `prompts`), in `response` (its messages
    /// and the other forms offered); answer with `IDXSignIn.proceed`.
    /// `notices`: what the loop did on its own (a restarted transaction).
    case ask(IDXRemediation, response: IDXResponse, notices: [IDXMessage])
    /// The interaction code exchanged: the token set, not yet validated (its
    /// ID token's `nonce` must be `nonce`, the one `/v1/interact` sent).
    case signedIn(TokenSet, nonce: String, notices: [IDXMessage])
    /// Only an external identity provider is offered (`redirect-idp`): the
    /// browser must sign in there.
    case browserNeeded(idps: [String])
}

/// One Okta IDX sign-in (okta-bi.md §3): the remediation loop. It runs the
/// automatic steps — selecting the security key, enrolling or challenging
/// it through the caller's `IDXKeyCeremony`, restarting an expired
/// transaction once — until a form needs the person or the sign-in ends;
/// `IDXNextStep` decides each step. Its secrets (the transaction: PKCE
/// verifier, state, nonce, interaction handle; the latest answer with its
/// `stateHandle`) stay in this object, in memory.
///
/// Calls take turns: a form is sent only on the answer it came from, so a
/// call while another runs is refused (`.stepRunning`) — and a new
/// sign-in's first turn is its creator's, until `begin` returns. Any
/// failure ends the sign-in, except the person's answer refused before it
/// was sent (`.missingValue`, `.badValue`, `.noSuchRemediation`): that form
/// can be filled again.
public final class IDXSignIn: Sendable {
    /// Automatic steps in a row (select, enroll, challenge) before the loop stops.
    public static let maximumAutomaticSteps = 12
    /// Steps in one sign-in, in all (a person retyping a password counts).
    public static let maximumSteps = 40

    public let client: IDXClient
    public let scopes: [String]
    public let redirectURI: String
    /// The authenticator the person named (`IDXNextStep.next`); nil: the security key when offered.
    public let authenticator: String?

    private struct State {
        var transaction: IDXTransaction?
        var response: IDXResponse?
        /// `idx.session.expired` restarts the transaction once; the second time it stops.
        var restarted = false
        var steps = 0
        var username: String?
        var running = true
        var ended = false
    }

    private let state = Locked(State())

    public init(client: IDXClient, scopes: [String], redirectURI: String, authenticator: String? = nil) {
        self.client = client
        self.scopes = scopes
        self.redirectURI = redirectURI
        self.authenticator = authenticator
    }

    /// The identifier the person sent in an identify form (1 to 256
    /// characters without control characters): worth remembering for the
    /// next sign-in once this one lands.
    public var username: String? { state.withLock { $0.username } }

    /// The sign-in was cancelled, failed or landed: nothing more is sent for it.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// Ends the sign-in here without telling the server (replaced by
    /// another, or forgotten): tokens it was about to fetch are not fetched.
    public func abandon() {
        state.withLock { $0.ended = true }
    }

    /// `/v1/interact`, introspect, then the automatic steps. The creator's
    /// first turn: call it once, right after `init`.
    public func begin(_ ceremony: some IDXKeyCeremony) async throws -> IDXProgress {
        defer { release() }
        do {
            try await start()
            return try await advance(ceremony, notices: [])
        } catch {
            abandon()
            throw error
        }
    }

    /// Sends the form named `remediation` of the latest answer, filled with
    /// `values` (dotted paths), then runs the automatic steps.
    public func proceed(_ remediation: String, values: [String: String], ceremony: some IDXKeyCeremony) async throws -> IDXProgress {
        let response = try take()
        defer { release() }
        guard let form = response.remediation(remediation) else {
            throw IDXError.noSuchRemediation(TokenError.sanitised(String(remediation.prefix(64))) ?? "",
                                             offered: response.remediations.map(\.name))
        }
        let next: IDXResponse
        do throws(IDXError) {
            try countStep()
            next = try await client.proceed(form, values: values, stateHandle: response.stateHandle)
        } catch .missingValue(let field, let label) {
            // Refused before anything was sent: the form can be filled again.
            throw IDXError.missingValue(field: field, label: label)
        } catch .badValue(let field, let reason) {
            throw IDXError.badValue(field: field, reason: reason)
        } catch {
            abandon()
            throw error
        }
        remember(values)
        state.withLock { $0.response = next }
        do {
            return try await advance(ceremony, notices: [])
        } catch {
            abandon()
            throw error
        }
    }

    /// Ends the sign-in, at the server too (its `cancel` form, best effort).
    public func cancel() async {
        let response = state.withLock { state in
            state.ended = true
            return state.response
        }
        if let response, let cancel = response.cancel {
            _ = try? await client.proceed(cancel, values: [:], stateHandle: response.stateHandle)
        }
    }

    // MARK: The loop

    /// interact, then introspect: a fresh transaction.
    private func start() async throws(IDXError) {
        let transaction = try await client.interact(scopes: scopes, redirectURI: redirectURI)
        let response = try await client.introspect(transaction)
        state.withLock { state in
            state.transaction = transaction
            state.response = response
        }
    }

    /// Runs automatic steps until the person has to fill a form or the sign-in ends.
    private func advance(_ ceremony: some IDXKeyCeremony, notices: [IDXMessage]) async throws -> IDXProgress {
        var notices = notices
        for _ in 0..<Self.maximumAutomaticSteps {
            let (transaction, response) = try current()
            let send: (IDXRemediation, [String: String])
            switch IDXNextStep.next(response, authenticator: authenticator) {
            case .exchange(let success):
                // A sign-in cancelled (or replaced) while this step ran must not fetch its tokens.
                guard !hasEnded else { throw IDXError.signInEnded }
                let tokens = try await client.exchange(success, transaction: transaction)
                abandon()
                return .signedIn(tokens, nonce: transaction.nonce, notices: notices)
            case .ask(let form):
                return .ask(form, response: response, notices: notices)
            case .select(let form, let values):
                send = (form, values)
            case .enrollWebAuthn(let form):
                let options = try IDXWebAuthn.creationOptions(response, issuerHost: client.endpoints.host)
                let registration = try await ceremony.create(options, origin: client.endpoints.origin)
                send = (form, IDXWebAuthn.enrollValues(attestationObject: registration.response.attestationObject.bytes,
                                                       clientDataJSON: registration.response.clientDataJSON.bytes))
            case .challengeWebAuthn(let form):
                let options = try IDXWebAuthn.requestOptions(response, issuerHost: client.endpoints.host)
                let assertion = try await ceremony.get(options, origin: client.endpoints.origin)
                send = (form, IDXWebAuthn.challengeValues(authenticatorData: assertion.response.authenticatorData.bytes,
                                                          clientDataJSON: assertion.response.clientDataJSON.bytes,
                                                          signature: assertion.response.signature.bytes))
            case .restart:
                guard !state.withLock({ $0.restarted }) else { throw IDXError.sessionExpired }
                try await start()
                state.withLock { $0.restarted = true }
                notices.append(IDXMessage(text: "The sign-in had expired at the server; it was started again.", key: "idx.session.expired",
                                          severity: "INFO"))
                continue
            case .browserNeeded(let idps):
                abandon()
                return .browserNeeded(idps: idps)
            case .stop(let error):
                throw error
            }
            try countStep()
            let next = try await client.proceed(send.0, values: send.1, stateHandle: response.stateHandle)
            state.withLock { $0.response = next }
        }
        throw IDXError.tooManySteps
    }

    // MARK: Turns and state

    /// Takes the turn for a call: the latest answer, unless another call
    /// runs or the sign-in has ended.
    private func take() throws(IDXError) -> IDXResponse {
        try state.withLock { state throws(IDXError) in
            guard !state.ended else { throw .signInEnded }
            // Before `begin` has an answer, the turn is still its creator's.
            guard !state.running, let response = state.response else { throw .stepRunning }
            state.running = true
            return response
        }
    }

    private func release() {
        state.withLock { $0.running = false }
    }

    private func current() throws(IDXError) -> (IDXTransaction, IDXResponse) {
        try state.withLock { state throws(IDXError) in
            guard let transaction = state.transaction, let response = state.response else { throw .signInEnded }
            return (transaction, response)
        }
    }

    /// Counts a step; past `maximumSteps` the sign-in stops.
    private func countStep() throws(IDXError) {
        let steps = state.withLock { state in
            state.steps += 1
            return state.steps
        }
        guard steps <= Self.maximumSteps else { throw .tooManySteps }
    }

    /// The identifier of an identify form, kept for the account's settings.
    private func remember(_ values: [String: String]) {
        guard let identifier = values.first(where: { $0.key == "identifier" || $0.key.hasSuffix(".identifier") })?.value,
              (1...256).contains(identifier.utf8.count), TokenError.sanitised(identifier) == identifier else { return }
        state.withLock { $0.username = identifier }
    }
}
