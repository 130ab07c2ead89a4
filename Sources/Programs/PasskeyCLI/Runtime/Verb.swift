import AgentProtocol
import ArgumentParser

/// A `passkey` verb that runs on a backend (the agent, or this process) and
/// reports failures as one line (or JSON) with the documented exit status.
protocol Verb: AsyncParsableCommand {
    var runOptions: RunOptions { get }
    func execute(on backend: Backend) async throws(AgentError)
}

extension Verb {
    func run() async throws { try await runHere() }

    /// The verb on the caller's thread (PasskeyCLI runs its async code where
    /// it is called: see PasskeyCommand.runOnMainThread).
    func runHere() async throws {
        try await VerbRun.run(noAgent: runOptions.noAgent, json: runOptions.json, execute)
    }
}

/// What every verb does around its body, whether ArgumentParser read its
/// command line or ScriptedForm did: choose the backend, run, and turn a
/// failure into its message and exit status.
enum VerbRun {
    static func run(noAgent: Bool, json: Bool,
                    _ body: (Backend) async throws(AgentError) -> Void) async throws(ExitCode) {
        do {
            let backend = try Backend.choose(noAgent: noAgent)
            try await body(backend)
        } catch {
            throw Output.fail(error, json: json)
        }
    }
}
