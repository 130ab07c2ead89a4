import AgentProtocol
import PIV
import SmartCard

/// Opening pcscd and cards for the card verbs, with their errors as `AgentError`.
enum CardContext {
    static func pcsc() throws(AgentError) -> SmartCardContext {
        do {
            return try SmartCardContext()
        } catch {
            throw CardErrors.agentError(error)
        }
    }

    /// The card in `reader`, or the only PIV card present when `reader` is nil.
    static func session(reader: String?, context: SmartCardContext) throws(AgentError) -> PIVSession {
        do {
            return try PIVCardLocator.open(reader: reader, context: context)
        } catch {
            throw CardErrors.agentError(error)
        }
    }

    /// Runs a PIV operation, turning its error into the CLI's.
    static func run<T>(_ body: () throws(PIVError) -> T) throws(AgentError) -> T {
        do {
            return try body()
        } catch {
            throw CardErrors.agentError(error)
        }
    }
}
