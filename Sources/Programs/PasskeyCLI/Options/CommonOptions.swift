import AgentProtocol
import ArgumentParser
import Settings

/// `--device` and `--virtual-state`: which authenticator to use.
struct DeviceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The authenticator: `virtual` (the software authenticator), a path such as /dev/hidraw0, or pcsc:READER for a key on a PC/SC (NFC) reader.",
        discussion: "Default: [device] default in config.toml, else the only connected security key (USB; if none, on a PC/SC reader)."))
    var device: String?

    @Option(name: .long, help: ArgumentHelp(
        "The software authenticator's state file.",
        discussion: "Default: $XDG_DATA_HOME/passkey-agent/virtual-authenticator.json."))
    var virtualState: String?

    var choice: DeviceChoice { DeviceChoice(device: device, virtualState: virtualState) }
}

/// `--no-agent` and `--json`, shared by every verb.
struct RunOptions: ParsableArguments {
    @Flag(name: .long, help: "Run in this process even if an agent is running.")
    var noAgent = false

    @Flag(name: .long, help: "Print results (and errors) as JSON.")
    var json = false
}

/// `--pin-stdin`: read the PIN from standard input, for scripts.
package struct PINOptions: ParsableArguments {
    @Flag(name: .long, help: ArgumentHelp(
        "Read the PIN from standard input (one line).",
        discussion: "Without it the PIN is asked on the terminal, or with pinentry; it is never an argument."))
    package var pinStdin = false

    package init() {}

    package var source: PINSource { PINSource(fromStandardInput: pinStdin, environment: ProcessEnvironment.current) }

    /// The security key's PIN from standard input with `--pin-stdin`, read
    /// before the request goes out; nil without it (the agent asks for it
    /// through the interaction if the key needs one).
    package func securityKeyPIN() throws(AgentError) -> String? {
        pinStdin ? try Self.securityKeyPIN(from: source) : nil
    }

    /// One line of standard input as the security key's PIN (also `login`'s own `--pin-stdin`).
    package static func securityKeyPIN(from source: PINSource) throws(AgentError) -> String {
        try source.read("security key PIN", description: "")
    }
}
