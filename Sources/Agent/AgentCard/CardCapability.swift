import AgentProtocol
import AgentRuntime

/// PIV cards on pcscd's readers: the `card.*` methods (list, plan and set up
/// slot 9D, PIN and PUK), one card operation at a time (`CardQueue`).
package final class CardCapability: Sendable {
    package init() {}

    package func register(into table: inout MethodTable.Builder) {
        registerCards(into: &table)
    }
}
