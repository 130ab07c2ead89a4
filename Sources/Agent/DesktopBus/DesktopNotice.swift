import Prompts

/// Tells the person at the desktop that a link they opened failed: nobody
/// watches the agent's log, and the launcher had its answer long ago.
/// Through the same pinentry that asks for the confirmation; with none
/// (no display, no $PASSKEY_PINENTRY) the log is all there is.
struct DesktopNotice: Sendable {
    let environment: [String: String]

    /// Shows `text` and returns at once: the dialog waits for the person on a thread of its own.
    func show(_ text: String) {
        guard let pinentry = Pinentry.available(environment: environment) else { return }
        // The answer does not matter: either button closes the notice.
        _ = OwnThread.detach { _ = pinentry.confirm(title: "passkey-agent", description: text, allow: "OK", deny: "Close") }
    }
}
