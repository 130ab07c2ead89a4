/// The policies in force for one request, snapshotted when it starts so a
/// concurrent policy change cannot make an inline request block.
struct UserActionPolicies: Sendable, Equatable {
    var presence: UserActionPolicy
    var verification: UserActionPolicy

    var mayWait: Bool { presence.mayWait || verification.mayWait }
}

/// What the simulated user did.
enum UserActionOutcome: Equatable {
    case approved
    case denied
    case timedOut
    case cancelled
}

/// Asks the simulated user for a touch or a fingerprint, as the request's policies say.
struct SimulatedUser {
    let policies: UserActionPolicies
    let control: RequestControl
    let timeoutMilliseconds: Int

    /// A touch (user presence).
    func collectPresence() -> UserActionOutcome { act(per: policies.presence) }

    /// A fingerprint (built-in user verification).
    func performBuiltInVerification() -> UserActionOutcome { act(per: policies.verification) }

    private func act(per policy: UserActionPolicy) -> UserActionOutcome {
        if control.isCancelled { return .cancelled }
        switch policy {
        case .approve:
            return .approved
        case .deny:
            return .denied
        case .timeout(let milliseconds):
            let wait = min(milliseconds ?? timeoutMilliseconds, timeoutMilliseconds)
            return control.waitForUser(milliseconds: wait) ? .cancelled : .timedOut
        case .approveAfter(let milliseconds):
            if milliseconds == 0 { return .approved }
            // A user slower than the timeout is a timeout, as on a real key.
            if milliseconds > timeoutMilliseconds {
                return control.waitForUser(milliseconds: timeoutMilliseconds) ? .cancelled : .timedOut
            }
            return control.waitForUser(milliseconds: milliseconds) ? .cancelled : .approved
        }
    }
}

extension UserActionOutcome {
    /// The usual mapping of a presence request that did not succeed:
    /// refused → OPERATION_DENIED, no answer → USER_ACTION_TIMEOUT, CANCEL → KEEPALIVE_CANCEL.
    func requireApproved() throws(CTAPStatus) {
        switch self {
        case .approved: return
        case .denied: throw .operationDenied
        case .timedOut: throw .userActionTimeout
        case .cancelled: throw .keepaliveCancel
        }
    }
}
