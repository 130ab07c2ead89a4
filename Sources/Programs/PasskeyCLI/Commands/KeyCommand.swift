import AgentProtocol
import ArgumentParser
import StandardError

struct KeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Look at a security key, or reset it.",
        subcommands: [KeyInfoCommand.self, KeyResetCommand.self])
}

struct KeyInfoCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show what a security key says about itself (authenticatorGetInfo) and its PIN retries.")

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let info = try await backend.call(KeyInfoMethod.self, .init(device: deviceOptions.choice),
                                          interaction: TerminalInteraction(pins: .interactive))
        if runOptions.json { Output.json(info); return }
        let mark = info.software ? "  [software]" : (info.transport == "nfc" ? "  [nfc]" : "")
        Output.line("\(info.path)  \(info.manufacturer) \(info.product)\(mark)")
        let options = info.options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let pin = info.pinSet ? "set" : (info.options["clientPin"] == nil ? "not supported" : "not set")
        var rows: [(String, String)] = [
            ("AAGUID", Self.uuid(info.aaguid)),
            ("versions", info.versions.joined(separator: ", ")),
            ("extensions", info.extensions.joined(separator: ", ")),
            ("options", options.joined(separator: " ")),
            ("algorithms", info.algorithms.map(String.init).joined(separator: ", ")),
            ("transports", info.transports.joined(separator: ", ")),
            ("PIN protocols", info.pinUvAuthProtocols.map(String.init).joined(separator: ", ")),
            ("PIN", "\(pin)\(info.pinRetries.map { ", \($0) retries left" } ?? ""), at least \(info.minPINLength) characters"),
        ]
        if let uv = info.uvRetries { rows.append(("built-in UV", "\(uv) attempts left")) }
        rows.append(("firmware", String(info.firmwareVersion)))
        rows.append(("max message", "\(info.maxMessageSize) bytes"))
        rows.append(("max credentials in a list", String(info.maxCredentialCountInList)))
        rows.append(("max credential id", "\(info.maxCredentialIdLength) bytes"))
        if let remaining = info.remainingDiscoverableCredentials {
            rows.append(("room for passkeys", String(remaining)))
        }
        let width = rows.map(\.0.count).max() ?? 0
        for (name, value) in rows {
            Output.line("  \(name):\(String(repeating: " ", count: width - name.count)) \(value)")
        }
    }

    /// 32 hex digits in the 8-4-4-4-12 form metadata services and vendors print.
    static func uuid(_ hex: String) -> String {
        guard hex.count == 32 else { return hex }
        var text = ""
        for (index, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { text.append("-") }
            text.append(character)
        }
        return text
    }
}

struct KeyResetCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Reset a security key: delete every passkey on it and its PIN.",
        discussion: """
        Keys allow a reset only within 10 seconds of being plugged in (or put on an NFC \
        reader), and only with a touch. On a terminal it says what will be lost and asks you \
        to type `reset`, then to plug the key in again (or put it back on the reader); \
        elsewhere pass --yes. The software \
        authenticator is "plugged in" when the agent first uses it, or, without an agent, \
        when the command starts.
        """)

    @Flag(name: .long, help: "Reset without asking (every passkey on the key is lost).")
    var yes = false
    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var runOptions: RunOptions

    func validate() throws {
        guard yes || TerminalPrompt.isInteractive else {
            throw ValidationError("not on a terminal, so nothing can ask before erasing the key: pass --yes to reset it")
        }
    }

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: .interactive)
        if !yes {
            let key = try await backend.call(KeyInfoMethod.self, .init(device: deviceOptions.choice), interaction: interaction)
            StandardError.write("""
                WARNING: this deletes every passkey on the key \(key.path) (\(key.manufacturer) \(key.product)) and its PIN, for good.
                Every site and account that signs in with this key, and any vault slot on it, stops working with it.

                """)
            guard TerminalPrompt.ask("Type `reset` to erase the key: ") == "reset" else {
                throw AgentError(.cancelled, "the key was not reset; nothing was changed")
            }
            // Keys allow a reset only just after power-up: have the person give it one.
            switch key.transport {
            case "usb": _ = TerminalPrompt.ask("Now unplug the key, plug it back in, then press Enter. ")
            case "nfc": _ = TerminalPrompt.ask("Now take the key off the reader, put it back, then press Enter (and keep it there). ")
            default: break
            }
        }
        let report = try await backend.call(KeyResetMethod.self, .init(device: deviceOptions.choice), interaction: interaction)
        if runOptions.json { Output.json(report); return }
        Output.line("The key \(report.path) was reset: it holds no passkeys and no PIN.")
    }
}
