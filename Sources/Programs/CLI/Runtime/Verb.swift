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
        do {
            let backend = try Backend.choose(noAgent: runOptions.noAgent)
            try await execute(on: backend)
        } catch {
            throw Output.fail(error, json: runOptions.json)
        }
    }
}
