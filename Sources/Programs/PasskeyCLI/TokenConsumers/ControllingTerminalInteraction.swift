import AgentProtocol
import Interaction

#if canImport(Glibc)
import Glibc
#endif

/// Answers questions for a program that runs `passkey` on another tool's
/// behalf (git, kubectl, docker, `passkey exec`'s caller): only on the
/// controlling terminal, /dev/tty, never on stderr — the tool that runs a
/// credential helper reads or swallows its output, so a prompt there is one
/// nobody sees (gimme-aws-creds #361). With `allowed` false (kubectl's
/// `spec.interactive: false`), or no terminal, every question is refused at
/// once: the tool gets an error instead of a hang.
package struct ControllingTerminalInteraction: UserInteraction {
    let allowed: Bool

    /// Whether this process has a controlling terminal to ask on.
    static var terminalAvailable: Bool {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    /// Whether a question can be asked at all.
    var canAsk: Bool { allowed && Self.terminalAvailable }

    package func progress(_ stage: ProgressStage) {
        guard stage == .touch || stage == .tap, canAsk else { return }
        Self.say(stage == .tap ? "Tap your security key on the reader…\n" : "Touch your security key…\n")
    }

    package func pin(_ request: PINRequest) async throws -> String {
        guard canAsk else { throw refusal("the \(request.what)") }
        if let left = request.triesLeft { Self.say("Wrong PIN: \(left) \(left == 1 ? "try" : "tries") left.\n") }
        guard let pin = TerminalPrompt.readSecret(prompt: "\(request.reason)\nEnter the \(request.what): ") else {
            throw AgentError(.cancelled, "no \(request.what) was entered")
        }
        return pin
    }

    package func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        throw AgentError(.userSelectionRequired, "several accounts on the key match; a credential helper does not choose between them")
    }

    package func confirm(_ request: ConfirmationRequest) async throws -> Bool {
        guard canAsk else { throw refusal("your confirmation") }
        guard let answer = TerminalPrompt.ask(request.text + "\n\nAllow this? Type `yes` to allow: ") else { return false }
        return answer.split(separator: " ").joined().lowercased() == "yes"
    }

    /// The error for a question that cannot be asked here.
    func refusal(_ what: String) -> AgentError {
        AgentError(allowed ? .pinRequired : .denied,
                   allowed ? "\(what) is needed, but there is no terminal (/dev/tty) to ask on"
                           : "\(what) is needed, but the calling tool said nobody can be asked (not interactive)")
    }

    /// A line on /dev/tty (nothing when there is none).
    static func say(_ text: String) {
        let fd = open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }
}
