import AgentClient
import AgentProtocol
import StandardError

/// Relays redirect addresses pasted on standard input to the login in
/// progress (`login.complete`), while the command waits on the agent. A
/// line that is not this login's (wrong `state`) is refused with a message
/// and the next one is read; the login's own end stops the relay with the
/// process.
///
/// Reading stdin blocks, so it runs in a task of its own, with its own
/// connection to the agent (the command's connection is busy waiting).
enum PastedRedirects {
    /// Where `login.complete` goes from the reading task.
    private enum Route: Sendable {
        case socket(String)
        case core(any InProcessCore)
    }

    static func relay(account: String, through backend: Backend) {
        let route: Route
        switch backend {
        case .agent(let connection): route = .socket(connection.path)
        case .inProcess(let core): route = .core(core)
        }
        Task.detached {
            while let line = StandardInput.readLine() {
                let url = String(line.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
                guard !url.isEmpty else { continue }
                do throws(AgentError) {
                    try await complete(account: account, url: url, route: route)
                    StandardError.writeLine("Got it: finishing the login…")
                    return
                } catch {
                    StandardError.writeLine("passkey: \(error.message)")
                    // Another login's address: say so and read on. Anything else ends the login.
                    if error.kind != .invalidInput { return }
                }
            }
        }
    }

    private static func complete(account: String, url: String, route: Route) async throws(AgentError) {
        let params = LoginCompleteMethod.Params(account: account, redirectURL: url)
        let interaction = TerminalInteraction(pins: .interactive)
        switch route {
        case .core(let core):
            _ = try await core.call(LoginCompleteMethod.self, params, interaction: interaction)
        case .socket(let path):
            guard let connection = try AgentConnection.connect(path: path) else {
                throw AgentError(.internal, "the agent went away")
            }
            _ = try await connection.call(LoginCompleteMethod.self, params, interaction: interaction)
        }
    }
}
