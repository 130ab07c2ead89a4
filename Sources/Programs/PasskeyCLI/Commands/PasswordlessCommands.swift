import AgentProtocol
import ArgumentParser
import StandardError

/// `--api-url`, `--api-key`, `--rp-id`, `--origin`: which passwordless.dev app.
struct ServerOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The passwordless.dev API.", discussion: "Default: [passwordless] api-url, else https://v4.passwordless.dev."))
    var apiUrl: String?
    @Option(name: .long, help: ArgumentHelp("The app's public API key (<app>:public:<hex>).", discussion: "Default: [passwordless] api-key."))
    var apiKey: String?
    @Option(name: .long, help: ArgumentHelp("The relying party id.", discussion: "Default: [passwordless] rp-id."))
    var rpId: String?
    @Option(name: .long, help: ArgumentHelp("The origin the ceremony claims.", discussion: "Default: [passwordless] origin, else https://<rp-id>."))
    var origin: String?

    var overrides: PasswordlessOverrides {
        PasswordlessOverrides(apiUrl: apiUrl, apiKey: apiKey, rpId: rpId, origin: origin)
    }
}

struct RegisterCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register a security key with a passwordless.dev app, using a register token from its backend.",
        discussion: """
        Runs /register/begin, creates the credential on the key, runs /register/complete, and \
        prints the verify token your backend checks with /signin/verify (--json: all fields).

        Example:
          passkey register --token register_… --rp-id example.org --api-key myapp:public:…
        """)

    @Option(name: .long, help: "The register token (register_…) your backend got from /register/token.")
    var token: String
    @Option(name: .long, help: "A name for this key, stored with the credential.")
    var nickname: String?
    @OptionGroup var server: ServerOptions
    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var pinOptions: PINOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: pinOptions.source)
        let pin = try pinOptions.securityKeyPIN()
        let result = try await backend.call(
            PasskeyRegisterMethod.self,
            .init(token: token, nickname: nickname, server: server.overrides, device: deviceOptions.choice,
                  pin: pin, interactive: interaction.canAnswer),
            interaction: interaction)
        if runOptions.json { Output.json(result) } else { Output.line(result.token) }
    }
}

struct SignInCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "signin",
        abstract: "Sign in to a passwordless.dev app with a security key; prints the verify token.",
        discussion: """
        Give one of --alias, --user-id or --discoverable. With --discoverable the key offers \
        its passkeys for the site; when several match, --user picks one, or you are asked on \
        a terminal.
        """)

    @Option(name: .long, help: "Sign in as the user with this alias.")
    var alias: String?
    @Option(name: .long, help: "Sign in as the user with this user id.")
    var userId: String?
    @Flag(name: .long, help: "Let the key offer its discoverable credentials for the site.")
    var discoverable = false
    @Option(name: .long, help: "With several discoverable credentials: the account to use (user name, display name or user handle).")
    var user: String?
    @OptionGroup var server: ServerOptions
    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var pinOptions: PINOptions
    @OptionGroup var runOptions: RunOptions

    func validate() throws {
        let chosen = [alias != nil, userId != nil, discoverable].filter { $0 }.count
        guard chosen == 1 else { throw ValidationError("give exactly one of --alias, --user-id and --discoverable") }
    }

    func execute(on backend: Backend) async throws(AgentError) {
        let interaction = TerminalInteraction(pins: pinOptions.source)
        let pin = try pinOptions.securityKeyPIN()
        let result = try await backend.call(
            PasskeySignInMethod.self,
            .init(alias: alias, userId: userId, discoverable: discoverable ? true : nil, user: user,
                  server: server.overrides, device: deviceOptions.choice, pin: pin,
                  interactive: interaction.canAnswer),
            interaction: interaction)
        if runOptions.json { Output.json(result); return }
        Output.line(result.token)
        for line in Self.whoSignedIn(result, alias: alias, userId: userId) { StandardError.writeLine(line) }
    }

    /// What is said on standard error beside the verify token (which alone
    /// goes to standard output, for `$(passkey signin …)`): the user signed
    /// in as, and a warning when the server knew no passkey for the alias or
    /// user id asked for — passwordless.dev then answers as for a
    /// discoverable sign-in, and the key signs in with whatever passkey it
    /// holds for the site.
    static func whoSignedIn(_ result: PasskeySignIn, alias: String?, userId: String?) -> [String] {
        var lines: [String] = []
        if let user = result.userId {
            lines.append("Signed in as user \"\(user)\".")
        } else if let asked = alias ?? userId {
            lines.append("Signed in with a passkey the server holds for \"\(asked)\".")
        }
        let asked = alias.map { "alias \"\($0)\"" } ?? userId.map { "user id \"\($0)\"" }
        if let asked, result.offeredCredentials == 0, userId == nil || result.userId != userId {
            let who = result.userId.map { "user \"\($0)\"" } ?? "a user the key did not name"
            lines.append("passkey: warning: the server knows no passkey for the \(asked), so the key signed in with one of "
                         + "its own: the verify token is for \(who), not necessarily the one asked for.")
        }
        return lines
    }
}
