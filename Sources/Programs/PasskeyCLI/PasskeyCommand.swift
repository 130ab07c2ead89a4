import ArgumentParser
import BuildInfo

/// The `passkey` command: the root of every verb.
public struct PasskeyCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "passkey",
        abstract: "Passkeys on security keys and tokens under hardware, from a terminal.",
        version: BuildInfo.versionLine(program: invokedName),
        subcommands: [StatusCommand.self, DevicesCommand.self, PINCommand.self, CredentialsCommand.self, KeyCommand.self, WebAuthnCommand.self, RegisterCommand.self, SignInCommand.self, CardCommand.self, DemoCommand.self, VaultCommand.self, UnlockCommand.self, LockCommand.self, TokenCommand.self, ExecCommand.self, CredentialCommand.self, LoginCommand.self, LogoutCommand.self, AccountsCommand.self, InvokeCommand.self, InstallHandlerCommand.self, ForwardCommand.self]
    )

    public init() {}

    /// `passkey` or `passkey-local`, as the program was started: the same
    /// command tree answers `--version` in both.
    static var invokedName: String {
        CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "passkey"
    }
}

extension PasskeyCommand {
    /// ArgumentParser's `main()`, except that a verb runs on the calling
    /// thread (the main thread) instead of Swift's cooperative pool: a verb
    /// only waits on its socket, and starting a pool thread and switching to
    /// it costs about 0.6 ms of CPU (and two wake-ups) per run, an eighth of
    /// a `passkey token get` (docs/BENCHMARKS.md). PasskeyCLI is built with
    /// NonisolatedNonsendingByDefault, so its async functions stay on the
    /// caller's executor; ArgumentParser's `run()` requirement would not.
    public static func runOnMainThread() async {
        do {
            var command = try parseAsRoot()
            if let verb = command as? any Verb {
                try await verb.runHere()
            } else if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if let help = rootHelp(for: error) {
                print(help + "\n\n" + ExitStatus.helpText)
                exit()
            }
            if let message = usageError(error, arguments: CommandLine.arguments.dropFirst()) {
                Output.jsonError(kind: "usage", message: message)
                exit(withError: ExitCode(ExitStatus.usage))
            }
            exit(withError: error)
        }
    }

    /// What ArgumentParser says is wrong with a command line that asks for
    /// `--json` (before any `--`), so that a script reading JSON gets its
    /// usage errors as JSON too; nil for any other error or command line.
    static func usageError(_ error: any Error, arguments: ArraySlice<String>) -> String? {
        guard !(error is ExitCode), exitCode(for: error).rawValue == ExitStatus.usage,
              arguments.prefix(while: { $0 != "--" }).contains("--json") else { return nil }
        return message(for: error)
    }

    /// The help screen of `passkey` itself (`passkey`, `passkey --help`,
    /// `passkey help`) when `error` asks for it, else nil. The exit statuses
    /// are printed after it: ArgumentParser puts a command's discussion
    /// between its overview and USAGE, and has no place after SUBCOMMANDS.
    static func rootHelp(for error: any Error) -> String? {
        guard exitCode(for: error) == .success else { return nil }
        let help = helpMessage()
        return fullMessage(for: error) == help ? help : nil
    }
}
