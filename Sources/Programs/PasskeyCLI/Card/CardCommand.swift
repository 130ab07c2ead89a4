import ArgumentParser

/// `passkey card …`: PIV smart cards over PC/SC (pcscd), through the agent
/// when it runs (`card.*` methods), else in this process.
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
