import ArgumentParser

/// `passkey card …`: PIV smart cards over PC/SC (pcscd).
///
/// These verbs run in this process on purpose: the operations live in the
/// PIV target as functions returning Codable reports, so the agent can serve
/// the same ones over its socket; the files here only parse, prompt and print.
struct CardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "card",
        abstract: "List PIV smart cards, set one up for passkey-agent, and manage its PIN.",
        discussion: """
        Cards are reached through pcscd (`sudo systemctl start pcscd.socket`). \
        PINs and PUKs are asked on the terminal with echo off, or read with --pin-stdin \
        one per line in the order each command documents; never from arguments.
        """,
        subcommands: [CardListCommand.self, CardSetupCommand.self, CardPINCommand.self])
}

/// Options every card verb takes.
struct CardOutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the result (or the error) as JSON.")
    var json = false
}
