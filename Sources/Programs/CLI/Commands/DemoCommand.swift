import AgentProtocol
import ArgumentParser

/// `passkey demo` runs `passkey-demo`, installed next to `passkey`: the demo
/// embeds the devserver, which `passkey` itself should not carry.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk through register and sign-in against a local passwordless.dev server.",
        discussion: """
        Starts passkey-devserver in-process on 127.0.0.1 (in the passkey-demo program, \
        installed next to passkey), uses the software authenticator with a temporary state \
        (or --device), and runs: a register token from the backend, registration, sign-in by \
        alias, by user id and with a discoverable credential, each verify token checked by \
        the backend — and a replayed one refused.
        """)

    @Option(name: .long, help: "Use this authenticator instead of a temporary software one (e.g. /dev/hidraw0).")
    var device: String?
    @OptionGroup var pinOptions: PINOptions

    func run() throws {
        var arguments = ["passkey-demo"]
        if let device { arguments += ["--device", device] }
        if pinOptions.pinStdin { arguments.append("--pin-stdin") }
        throw Output.fail(SiblingProgram.exec("passkey-demo", arguments: arguments), json: false)
    }
}
