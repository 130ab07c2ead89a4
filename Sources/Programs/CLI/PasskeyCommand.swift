import ArgumentParser

/// The `passkey` command: the root of every verb.
public struct PasskeyCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "passkey",
        abstract: "Passkeys on security keys, and tokens kept under hardware, from a terminal.",
        discussion: ExitStatus.helpText,
        subcommands: [StatusCommand.self, DevicesCommand.self, PINCommand.self, WebAuthnCommand.self, RegisterCommand.self, SignInCommand.self, CardCommand.self, DemoCommand.self, VaultCommand.self, UnlockCommand.self, LockCommand.self, TokenCommand.self]
    )

    public init() {}
}
