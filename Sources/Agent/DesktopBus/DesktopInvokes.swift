import AgentCore
import AgentProtocol
import AgentRuntime
import Interaction
import Logging
import Tokens
import URLPolicy

/// Runs the `invoke` method — the same handler the socket's clients reach —
/// for each URI a launcher opened over D-Bus. One at a time, in arrival
/// order: there is one person to confirm and one key to touch, so a second
/// link waits for the first instead of stacking a second dialog on it; at
/// most `maxWaiting` wait, and a link past that is dropped (and logged), so
/// a flood of links cannot pile up work. Nobody waits for the answer, so the
/// outcome is logged (the URL only up to its path: its query may hold a
/// binding token or a request) and a failure is shown to the person when
/// something can show it.
final class DesktopInvokes: Sendable {
    static let maxWaiting = 8

    private let core: AgentCore
    private let logger: Logger
    private let environment: [String: String]
    private let waiting: AsyncStream<String>.Continuation

    init(core: AgentCore, logger: Logger, environment: [String: String]) {
        self.core = core
        self.logger = logger
        self.environment = environment
        let (stream, waiting) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(Self.maxWaiting))
        self.waiting = waiting
        Task { [self] in
            for await uri in stream { await run(uri) }
        }
    }

    func open(_ uris: [String]) {
        for uri in uris {
            if case .dropped = waiting.yield(uri) {
                logger.warning("D-Bus: \(Endpoint.shown(uri)) dropped: \(Self.maxWaiting) links already wait their turn")
            }
        }
    }

    private func run(_ uri: String) async {
        let shown = Endpoint.shown(uri)
        // No socket client is there to answer: the confirmation and a PIN go
        // to the person through pinentry, which refuses when it cannot ask.
        let interaction = DesktopInteraction(environment: environment)
        logger.info("D-Bus: opening \(shown)")
        do throws(AgentError) {
            let result = try await core.methods.call(InvokeMethod.self, .init(url: uri, interactive: true), interaction: interaction)
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
