import AgentClient
import AgentProtocol
import StandardError
#if canImport(Glibc)
import Glibc
#endif

/// The terminal's side of an Okta IDX sign-in: the agent sends a form as
/// the server described it; this asks its visible fields (secret ones
/// without echo), offers choices as a numbered list, shows the server's
/// messages, and sends the answers back — until the agent says `done`.
/// `stateHandle` and every fixed value are the agent's business.
struct IDXConversation {
    let account: String
    let backend: Backend
    let interaction: TerminalInteraction
    /// `--username`: fills `identifier` without asking.
    let username: String?
    /// `--password-stdin`: fills the first secret field, once.
    var password: String?
    /// `--pin-stdin`: the security key's PIN, sent with each step (the key's steps run in the agent).
    let pin: String?
    let device: DeviceChoice
    /// Whether a person can be asked: standard error is a terminal.
    let canAsk = isatty(2) == 1

    mutating func run(_ first: IDXStep) async throws(AgentError) -> LoginResult {
        var step = first
        while !step.done {
            Self.show(step.messages)
            guard let remediation = step.remediation else {
                throw AgentError(.serverError, "the agent sent an IDX step with no form to fill")
            }
            let values = try fill(step)
            step = try await backend.call(LoginIDXProceedMethod.self,
                                          .init(account: account, remediation: remediation, values: values, device: device,
                                                pin: pin, interactive: interaction.canAnswer),
                                          interaction: interaction)
        }
        Self.show(step.messages)
        guard let login = step.login else { throw AgentError(.serverError, "the agent finished the IDX sign-in without a result") }
        return login
    }

    /// The answers to one form, by dotted path.
    private mutating func fill(_ step: IDXStep) throws(AgentError) -> [String: String] {
        var values: [String: String] = [:]
        for field in step.fields {
            for message in field.messages { StandardError.writeLine("\(field.label): \(message)") }
            if field.path == "identifier" || field.path.hasSuffix(".identifier"), let username, field.messages.isEmpty {
                values[field.path] = username
                continue
            }
            if field.secret, let secret = password {
                password = nil
                values[field.path] = secret
                continue
            }
            // Optional yes/no preferences (rememberMe) keep the server's default.
            if field.type == "boolean" && !field.required { continue }
            guard canAsk else {
                guard field.required else { continue }
                let said = field.messages.isEmpty ? "" : " (the server said: \(field.messages.joined(separator: " ")))"
                throw AgentError(.invalidInput, "the sign-in asks for \(field.label) (`\(field.path)`)\(said), and there is no terminal to ask on: "
                                 + (field.secret ? "give it with --password-stdin" : field.path == "identifier" ? "give --username" : "run it in a terminal"))
            }
            if let answer = try ask(field) { values[field.path] = answer }
        }
        return values
    }

    /// One field on the terminal; nil leaves an optional field out.
    private func ask(_ field: IDXFieldPrompt) throws(AgentError) -> String? {
        let suffix = field.required ? ": " : " (optional): "
        if !field.options.isEmpty {
            StandardError.writeLine("\(field.label):")
            for (index, option) in field.options.enumerated() { StandardError.writeLine("  \(index + 1). \(option)") }
            while true {
                guard let answer = TerminalPrompt.ask("Choose 1-\(field.options.count)\(field.required ? "" : " (optional)"): ") else {
                    throw AgentError(.cancelled, "no answer for \(field.label)")
                }
                let trimmed = answer.trimmingSpaces
                if trimmed.isEmpty && !field.required { return nil }
                if let number = Int(trimmed), (1...field.options.count).contains(number) { return trimmed }
                StandardError.writeLine("Give a number from 1 to \(field.options.count).")
            }
        }
        while true {
            let answer = field.secret ? TerminalPrompt.readSecret(prompt: field.label + suffix)
                                      : TerminalPrompt.ask(field.label + suffix)
            guard let answer else { throw AgentError(.cancelled, "no answer for \(field.label)") }
            if !answer.isEmpty { return field.secret ? answer : answer.trimmingSpaces }
            if !field.required { return nil }
        }
    }

    static func show(_ messages: [IDXMessage]) {
        for message in messages {
            StandardError.writeLine(message.severity == "ERROR" ? "error: \(message.text)" : message.text)
        }
    }
}

private extension String {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
