import AgentProtocol
import FIDO
import Interaction
import WebAuthn
import WebAuthnClient

extension CoreServices {
    func registerWebAuthn(into table: inout MethodTable.Builder) {
        table.register(WebAuthnCreateMethod.self) { params, interaction in
            try await self.webauthnCreate(params, interaction: interaction)
        }
        table.register(WebAuthnGetMethod.self) { params, interaction in
            try await self.webauthnGet(params, interaction: interaction)
        }
    }

    func webauthnCreate(_ params: WebAuthnCreateMethod.Params,
                        interaction: any UserInteraction) async throws(AgentError) -> RegistrationResponseJSON {
        do {
            let ceremony = CreateCredential(options: params.options, origin: try WebAuthnOrigin(params.origin))
            let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
            return try await devices.withDevice(params.device) { device in
                try await ceremony.run(on: device, pin: params.pin, interaction: guarded)
            }
        } catch {
            throw AgentError(error)
        }
    }

    func webauthnGet(_ params: WebAuthnGetMethod.Params,
                     interaction: any UserInteraction) async throws(AgentError) -> AuthenticationResponseJSON {
        do {
            let ceremony = GetCredential(options: params.options, origin: try WebAuthnOrigin(params.origin),
                                         account: params.user)
            let guarded = GuardedInteraction(interaction, interactive: params.interactive ?? false)
            return try await devices.withDevice(params.device) { device in
                try await ceremony.run(on: device, pin: params.pin, interaction: guarded)
            }
        } catch {
            throw AgentError(error)
        }
    }
}

/// Lets a ceremony ask questions only when the caller said it can answer;
/// otherwise a question becomes the error that names what was missing.
struct GuardedInteraction: UserInteraction {
    let base: any UserInteraction
    let interactive: Bool

    init(_ base: any UserInteraction, interactive: Bool) {
        self.base = base
        self.interactive = interactive
    }

    func progress(_ stage: ProgressStage) {
        // "pin" is a question on the socket; it is announced by `pin(_:)` itself.
        if stage != .pin { base.progress(stage) }
    }

    func pin(_ request: PINRequest) async throws -> String {
        guard interactive else {
            var details: [String: JSONValue] = [:]
            if let left = request.triesLeft { details["triesLeft"] = .number(Double(left)) }
            throw AgentError(.pinRequired,
                             "\(request.reason) Nothing can ask for it here: use --pin-stdin (on the socket: pass `pin`, or `\"interactive\": true` and answer the prompt).",
                             details: details)
        }
        return try await base.pin(request)
    }

    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        guard interactive else {
            throw AgentError(.userSelectionRequired,
                             "several accounts on the key match; name one with `user` (--user): \(accounts.map(\.label).joined(separator: ", "))",
                             details: ["accounts": .array(accounts.map { .string($0.label) })])
        }
        return try await base.chooseAccount(accounts)
    }

    func confirm(_ request: ConfirmationRequest) async throws -> Bool {
        guard interactive else {
            throw AgentError(.denied, "this needs the person's confirmation and nothing can ask for it here "
                             + "(on the socket: `\"interactive\": true` and answer the `confirm` prompt); nothing was done")
        }
        return try await base.confirm(request)
    }
}
