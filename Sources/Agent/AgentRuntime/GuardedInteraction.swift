import AgentProtocol
import Interaction

/// Lets a ceremony ask questions only when the caller said it can answer;
/// otherwise a question becomes the error that names what was missing.
package struct GuardedInteraction: UserInteraction {
    package let base: any UserInteraction
    package let interactive: Bool

    package init(_ base: any UserInteraction, interactive: Bool) {
        self.base = base
        self.interactive = interactive
    }

    package func progress(_ stage: ProgressStage) {
        // "pin" is a question on the socket; it is announced by `pin(_:)` itself.
        if stage != .pin { base.progress(stage) }
    }

    package func pin(_ request: PINRequest) async throws -> String {
        guard interactive else {
            var details: [String: JSONValue] = [:]
            if let left = request.triesLeft { details["triesLeft"] = .number(Double(left)) }
            throw AgentError(.pinRequired,
                             "\(request.reason) Nothing can ask for it here: use --pin-stdin (on the socket: pass `pin`, or `\"interactive\": true` and answer the prompt).",
                             details: details)
        }
        return try await base.pin(request)
    }

    package func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        guard interactive else {
            throw AgentError(.userSelectionRequired,
                             "several accounts on the key match; name one with `user` (--user): \(accounts.map(\.label).joined(separator: ", "))",
                             details: ["accounts": .array(accounts.map { .string($0.label) })])
        }
        return try await base.chooseAccount(accounts)
    }

    package func confirm(_ request: ConfirmationRequest) async throws -> Bool {
        guard interactive else {
            throw AgentError(.denied, "this needs the person's confirmation and nothing can ask for it here "
                             + "(on the socket: `\"interactive\": true` and answer the `confirm` prompt); nothing was done")
        }
        return try await base.confirm(request)
    }
}
