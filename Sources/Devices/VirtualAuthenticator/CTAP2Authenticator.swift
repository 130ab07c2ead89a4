import Locking

/// A software CTAP 2.1 authenticator: it answers CTAP2 requests (command byte
/// ‖ CBOR) with responses (status byte ‖ CBOR), as a security key does behind
/// its transport. `VirtualHIDDevice` puts CTAPHID framing in front of it.
///
/// Thread-safe; requests are processed one at a time. "Power-up" is this
/// instance's construction; a "power cycle" is dropping the instance and
/// constructing a new one from the same state file (volatile state — PIN/UV
/// tokens, key-agreement keys, the 3-wrong-PINs lock, pending
/// getNextAssertion — does not survive it; the state file does).
/// Use one instance per state file at a time.
public final class CTAP2Authenticator: Sendable {
    /// The configuration the instance was built with (policies may change since; see below).
    public let configuration: VirtualAuthenticatorConfiguration
    private let engine: Locked<AuthenticatorEngine>
    private let policies: Locked<UserActionPolicies>
    private let diagnostics: Diagnostics

    /// Loads the state file (creating it, 0600 in a 0700 directory, if absent).
    /// A state file that cannot be read or is damaged is an error; it is never replaced.
    public convenience init(configuration: VirtualAuthenticatorConfiguration = VirtualAuthenticatorConfiguration())
        throws(VirtualAuthenticatorError) {
        try self.init(configuration: configuration, store: nil)
    }

    /// Keeps the state in `store` (a host's own document) rather than in a
    /// state file; `configuration.statePath` must be nil. A new store gets a
    /// factory-new state, saved at once.
    public convenience init(configuration: VirtualAuthenticatorConfiguration, store: (any AuthenticatorStateStore)?)
        throws(VirtualAuthenticatorError) {
        try self.init(configuration: configuration, store: store, resetClock: MonotonicClock.now)
    }

    /// As above, with power-up and the reset window read from `resetClock`
    /// (monotonic nanoseconds) instead of CLOCK_MONOTONIC: for tests.
    init(configuration: VirtualAuthenticatorConfiguration, store: (any AuthenticatorStateStore)?,
         resetClock: @escaping @Sendable () -> UInt64) throws(VirtualAuthenticatorError) {
        let diagnostics = Diagnostics()
        let engine = try AuthenticatorEngine(configuration: configuration, diagnostics: diagnostics, store: store,
                                             resetClock: resetClock)
        self.configuration = engine.configuration
        self.engine = Locked(engine)
        self.policies = Locked(UserActionPolicies(presence: configuration.presence,
                                                 verification: configuration.verification))
        self.diagnostics = diagnostics
    }

    /// What the simulated user does on a touch request; takes effect from the next request.
    public var presencePolicy: UserActionPolicy {
        get { policies.withLock { $0.presence } }
        set { policies.withLock { $0.presence = newValue } }
    }

    /// What the simulated user does on a fingerprint request; takes effect from the next request.
    public var verificationPolicy: UserActionPolicy {
        get { policies.withLock { $0.verification } }
        set { policies.withLock { $0.verification = newValue } }
    }

    /// Whether a request started now may wait for the simulated user (a
    /// `timeout` or `approve-after` policy). A host that answers its transport
    /// while a request waits (keepalives, cancel) runs only such requests on
    /// another thread, as `VirtualHIDDevice` does.
    public var requestsMayWait: Bool { currentPolicies.mayWait }

    /// The last failure to write the state file, nil once a write succeeds again.
    /// (The failing request itself answered CTAP1_ERR_OTHER and changed nothing.)
    public var lastStateWriteError: VirtualAuthenticatorError? { diagnostics.lastStateWriteError }

    /// Processes one CTAP2 request. Blocks while the simulated user "thinks"
    /// under a `timeout` or `approve-after` policy; `control` can cancel that
    /// wait from another thread and hears keepalives meanwhile.
    public func process(_ request: [UInt8], control: RequestControl = RequestControl()) -> [UInt8] {
        process(request, control: control, policies: currentPolicies)
    }

    var currentPolicies: UserActionPolicies { policies.withLock { $0 } }

    /// Processes a request under policies snapshotted by the caller (the HID
    /// device decides inline vs worker from the same snapshot).
    func process(_ request: [UInt8], control: RequestControl, policies: UserActionPolicies) -> [UInt8] {
        let interaction = SimulatedUser(policies: policies, control: control,
                                          timeoutMilliseconds: configuration.userActionTimeoutMilliseconds)
        return engine.withLock { engine in engine.process(request, interaction: interaction) }
    }
}
