import AgentProtocol
import ArgumentParser

/// `passkey demo` runs `passkey-demo`, installed next to `passkey`: the demo
/// embeds the devserver, which `passkey` itself should not carry.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk through the whole product on this machine, each step verified.",
        discussion: """
        Runs passkey-demo (installed next to passkey): passkey-devserver in-process on \
        127.0.0.1, a passkey-agent of its own with temporary XDG directories, the software \
        authenticator (or --device) and, with pcscd and vpcd installed, a virtual card. \
        Chapters: 1 passkeys with passwordless.dev; 2 a vault opened by the key (and a PIV \
        card); 3 login, token get, refresh with rotation; 4 lock and unlock; 5 Okta + Beyond \
        Identity; 6 Okta IDX; 7 NFC. --chapter N (repeatable) runs chapters alone.
        """)

    @Option(name: .long, help: "Use this authenticator instead of a temporary software one (e.g. /dev/hidraw0).")
    var device: String?
    @Option(name: .long, help: "Run only this chapter (1 to 7); repeat it for several. Default: all.")
    var chapter: [Int] = []
    @Flag(name: .long, help: "Leave the virtual card out even when pcscd and vpcd are installed.")
    var noCard = false
    @OptionGroup var pinOptions: PINOptions

    func run() throws {
        var arguments = ["passkey-demo"]
        if let device { arguments += ["--device", device] }
        for number in chapter { arguments += ["--chapter", String(number)] }
        if noCard { arguments.append("--no-card") }
        if pinOptions.pinStdin { arguments.append("--pin-stdin") }
        throw Output.fail(SiblingProgram.exec("passkey-demo", arguments: arguments), json: false)
    }
}
