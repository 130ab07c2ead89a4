import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import OktaIDX

/// Okta IDX failures as the protocol's error kinds; the server's code in `errorCode`.
extension IDXError: AgentErrorMapping {
    package var agentError: AgentError {
        switch self {
        case .token(let openID): return AgentError(openID: openID)
        case .network(let transport): return AgentError(transport: transport)
        case .sessionExpired: return AgentError(.timeout, description, details: ["errorCode": .string("idx.session.expired")])
        case .missingValue, .badValue: return AgentError(.invalidInput, description)
        case .noRemediation, .noSuchRemediation: return AgentError(.unsupported, description)
        case .foreignHref: return AgentError(.denied, description)
        case .refused: return AgentError(.denied, description)
        case .interactRefused(_, let code, _):
            return AgentError(.serverError, description, details: code.map { ["errorCode": .string($0)] } ?? [:])
        case .server(_, _, let code, _):
            return AgentError(.serverError, description, details: code.map { ["errorCode": .string($0)] } ?? [:])
        case .noInteractEndpoint, .malformed, .webauthn: return AgentError(.serverError, description)
        case .stepRunning: return AgentError(.deviceBusy, description)
        case .tooManySteps: return AgentError(.serverError, description)
        case .signInEnded: return AgentError(.cancelled, description)
        }
    }
}
