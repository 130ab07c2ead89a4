import Interaction

/// The `progress` notification the agent sends while a request waits:
/// `{"jsonrpc":"2.0","method":"progress","params":{"id":7,"stage":"touch"}}`.
///
/// Stages `processing`, `touch` and `tap` are informational. Stages `pin`,
/// `choose` and `confirm` are questions, sent only to requests that said
/// `"interactive": true`: the client answers with `$/pin`, `$/choose` or
/// `$/confirm` (or gives up with `$/cancel`).
public struct ProgressParams: Codable, Sendable, Equatable {
    public enum Stage: String, Codable, Sendable {
        case processing, touch, tap, pin, choose, confirm
    }

    public var id: RPCID
    public var stage: Stage
    /// With `pin`: what is asked for, why, and the tries left after a wrong PIN.
    public var pin: PINRequest?
    /// With `choose`: the accounts to pick from.
    public var accounts: [AccountChoice]?
    /// With `confirm`: what the person is asked to allow.
    public var confirmation: ConfirmationRequest?

    public init(id: RPCID, stage: Stage, pin: PINRequest? = nil, accounts: [AccountChoice]? = nil,
                confirmation: ConfirmationRequest? = nil) {
        self.id = id
        self.stage = stage
        self.pin = pin
        self.accounts = accounts
        self.confirmation = confirmation
    }

    public static let method = "progress"
}

extension ProgressParams.Stage {
    public init(_ progress: ProgressStage) {
        switch progress {
        case .processing: self = .processing
        case .touch: self = .touch
        case .tap: self = .tap
        case .pin: self = .pin
        }
    }
}

/// Client → agent control messages about a request in flight. They are
/// notifications (no `id` of their own) and get no answer.
public enum ControlMethod {
    /// `{"method":"$/cancel","params":{"id":7}}`: stop request 7; it answers `cancelled`.
    public static let cancel = "$/cancel"
    /// `{"method":"$/pin","params":{"id":7,"pin":"…"}}`: the PIN request 7 asked for.
    public static let pin = "$/pin"
    /// `{"method":"$/choose","params":{"id":7,"index":1}}`: the account request 7 asked about.
    public static let choose = "$/choose"
    /// `{"method":"$/confirm","params":{"id":7,"allowed":true}}`: the person's answer to request 7's confirmation.
    public static let confirm = "$/confirm"
}

public struct ConfirmAnswerParams: Codable, Sendable {
    public var id: RPCID
    public var allowed: Bool
    public init(id: RPCID, allowed: Bool) {
        self.id = id
        self.allowed = allowed
    }
}

public struct CancelParams: Codable, Sendable {
    public var id: RPCID
    public init(id: RPCID) { self.id = id }
}

public struct PINAnswerParams: Codable, Sendable {
    public var id: RPCID
    public var pin: String
    public init(id: RPCID, pin: String) {
        self.id = id
        self.pin = pin
    }
}

public struct ChooseAnswerParams: Codable, Sendable {
    public var id: RPCID
    public var index: Int
    public init(id: RPCID, index: Int) {
        self.id = id
        self.index = index
    }
}
