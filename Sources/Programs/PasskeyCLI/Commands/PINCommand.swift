import AgentProtocol
import ArgumentParser

struct PINCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Set or change a security key's PIN.",
        subcommands: [PINSet.self, PINChange.self])
}

struct PINSet: Verb {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Give a security key its first PIN (4 to 63 characters).",
        discussion: "With --pin-stdin, standard input holds the new PIN on one line.")

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var pinOptions: PINOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let newPIN = try PINEntry.newPIN(pinOptions.source, confirm: !pinOptions.pinStdin)
        let status = try await backend.call(PINSetMethod.self, .init(device: deviceOptions.choice, newPin: newPIN),
                                            interaction: TerminalInteraction(pins: pinOptions.source))
        if runOptions.json { Output.json(status) } else { Output.line("PIN set.") }
    }
}

struct PINChange: Verb {
    static let configuration = CommandConfiguration(
        commandName: "change",
        abstract: "Change a security key's PIN.",
        discussion: "With --pin-stdin, standard input holds the current PIN, then the new one, one per line.")

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var pinOptions: PINOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let current = try pinOptions.source.read("current PIN", description: "Changing the security key's PIN.")
        let newPIN = try PINEntry.newPIN(pinOptions.source, confirm: !pinOptions.pinStdin)
        let status = try await backend.call(PINChangeMethod.self,
                                            .init(device: deviceOptions.choice, pin: current, newPin: newPIN),
                                            interaction: TerminalInteraction(pins: pinOptions.source))
        if runOptions.json { Output.json(status) } else { Output.line("PIN changed.") }
    }
}

enum PINEntry {
    /// Reads a new PIN; at a prompt it is asked twice.
    static func newPIN(_ source: PINSource, confirm: Bool) throws(AgentError) -> String {
        let first = try source.read("new PIN", description: "Choose the security key's new PIN (4 to 63 characters).")
        if confirm {
            let second = try source.read("new PIN again", description: "Type the new PIN once more.")
            guard first == second else { throw AgentError(.invalidInput, "the two new PINs differ; nothing was changed") }
        }
        return first
    }
}
