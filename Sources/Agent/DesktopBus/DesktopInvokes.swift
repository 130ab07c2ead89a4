import AgentCore
import AgentProtocol
import Interaction
import Logging
import Tokens

/// Runs the `invoke` method — the same handler the socket's clients reach —
/// for each URI a launcher opened over D-Bus, one task each. Nobody waits
/// for the answer, so the outcome is logged (the URL only up to its path:
/// its query may hold a binding token or a request) and a failure is shown
/// to the person when something can show it.
struct DesktopInvokes: Sendable {
    let core: AgentCore
    let logger: Logger
    let environment: [String: String]

    func open(_ uris: [String]) {
        for uri in uris {
            Task { await run(uri) }
        }
    }

    private func run(_ uri: String) async {
        let shown = Endpoint.shown(uri)
        // No socket client is there to answer: the confirmation and a PIN go
        // to the person through pinentry, which refuses when it cannot ask.
        let interaction = DesktopInteraction(environment: environment)
        logger.info("D-Bus: opening \(shown)")
        do throws(AgentError) {
            let result = try await core.call(InvokeMethod.self, .init(url: uri, interactive: true), interaction: interaction)
            logger.notice("D-Bus: \(shown): \(Self.describe(result))")
        } catch {
            logger.error("D-Bus: \(shown) failed: \(error.message)")
            // The person cancelled it themselves: nothing to tell them.
            if error.kind != .cancelled {
                DesktopNotice(environment: environment).show("The link you opened (\(shown)) did not go through:\n\(error.message)")
            }
        }
    }

    static func describe(_ result: InvokeResult) -> String {
        switch result.kind {
        case .bind:
            let passkey = result.passkey
            return "bound a passkey for \(passkey?.displayName ?? passkey?.username ?? "the identity") (\(passkey?.passkeyId ?? "?"))"
        case .authenticate:
            return "signed in with the passkey; the login of \"\(result.account ?? "?")\" is finishing"
        case .redirect:
            return "handed the redirect to the login of \"\(result.account ?? "?")\""
        }
    }
}
