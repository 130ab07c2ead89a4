import AgentProtocol
import ArgumentParser

struct StatusCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show whether the agent runs, its version, its settings and where each came from, and the authenticators it sees.")

    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        try await Self.show(on: backend, json: runOptions.json)
    }

    /// The verb itself, also run by ScriptedForm (which reads `passkey status`
    /// without ArgumentParser, so it never builds this command's properties).
    static func show(on backend: Backend, json: Bool) async throws(AgentError) {
        let status = try await backend.call(AgentStatusMethod.self, NoParams(),
                                            interaction: TerminalInteraction(pins: .interactive))
        if json { Output.json(status); return }
        if status.agentRunning {
            // The number comes over the socket: never a trapping conversion.
            let uptime = Int(exactly: status.uptimeSeconds.rounded(.towardZero)).map(String.init) ?? "?"
            Output.line("agent: running (pid \(status.pid), up \(uptime) s, \(status.pendingRequests) pending)")
        } else {
            Output.line("agent: not running (answered in-process)")
        }
        Output.line("version: \(status.version) (protocol \(status.protocolVersion))")
        if let vault = status.vault {
            let state = !vault.initialized ? "none (create one with `passkey vault init`)"
                : vault.locked ? "locked" : "unlocked\(vault.unlockedWith.map { " (key slot \($0))" } ?? "")"
            Output.line("vault: \(state)")
        }
        for problem in status.configProblems ?? [] {
            Output.line("config: \(problem)")
        }
        // Each setting in force and what decided it: a flag on the agent's
        // command line (a unit's ExecStart=) beats config.toml, and shows here.
        for setting in status.settings ?? [] {
            let value = setting.value.map { " = \(printable($0))\(setting.name == "agent.idle-timeout" && $0 == "0" ? " (never)" : "")" } ?? " not set"
            Output.line("setting: \(printable(setting.name))\(value)  (\(printable(setting.source)))")
        }
        if status.devices.isEmpty {
            Output.line("devices: none connected")
        } else {
            for device in status.devices {
                Output.line("device: \(device.path)  \(device.product)\(device.software ? "  [software]" : "")")
            }
        }
    }

    /// A value from the agent (config.toml's strings among them) without
    /// control or format characters: nothing it holds may drive the terminal.
    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter {
            $0.properties.generalCategory != .control && $0.properties.generalCategory != .format
        }))
    }
}
