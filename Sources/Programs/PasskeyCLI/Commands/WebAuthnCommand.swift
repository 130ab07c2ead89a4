import AgentProtocol
import ArgumentParser
import DecodingErrors
import FoundationEssentials
import StandardError
import WebAuthnJSON

#if canImport(Glibc)
import Glibc
#endif

struct WebAuthnCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webauthn",
        abstract: "Run raw WebAuthn ceremonies: options JSON in, response JSON out.",
        subcommands: [WebAuthnCreate.self, WebAuthnGet.self])
}

/// Reads an options document from --options FILE or standard input. When
/// standard input is a terminal, says first what it waits for: a person who
/// forgot `< options.json` would otherwise see a command that hangs.
struct OptionsInput: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Read the options JSON from this file instead of standard input.",
        discussion: "From a terminal, paste the options and press Ctrl-D; passkey says so before it waits."))
    var options: String?

    func read<T: Decodable>(_ type: T.Type, pinFromStandardInput: Bool) throws(AgentError) -> T {
        let bytes: [UInt8]
        if let options {
            guard let data = FileManager.default.contents(atPath: options) else {
                throw AgentError(.invalidInput, "cannot read \(options)")
            }
            bytes = [UInt8](data)
        } else {
            guard !pinFromStandardInput else {
                throw AgentError(.invalidInput, "with --pin-stdin, give the options with --options FILE (standard input holds the PIN)")
            }
            if isatty(0) == 1 {
                StandardError.writeLine("passkey: reading the \(T.self) from the terminal: paste it, then press Ctrl-D "
                                        + "(or give --options FILE, or < FILE)")
            }
            bytes = StandardInput.readAll()
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw AgentError(.invalidInput, "the options are not valid \(T.self): \(DecodingErrorText.describe(error))")
        }
    }
}

struct WebAuthnCreate: Verb {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Register: PublicKeyCredentialCreationOptionsJSON in, RegistrationResponseJSON out.",
        discussion: """
        Builds clientDataJSON for --origin, runs makeCredential through libfido2 and \
        prints the RegistrationResponseJSON (with transports, authenticatorAttachment \
        and clientExtensionResults, including credProps) on standard output.

        Example:
          passkey webauthn create --device virtual --origin https://example.org < options.json
        """)

    @Option(name: .long, help: "The origin the ceremony runs for, e.g. https://example.org.")
    var origin: String
    @OptionGroup var input: OptionsInput
    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var pinOptions: PINOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let options = try input.read(PublicKeyCredentialCreationOptionsJSON.self, pinFromStandardInput: pinOptions.pinStdin)
        let interaction = TerminalInteraction(pins: pinOptions.source)
        let pin = try pinOptions.securityKeyPIN()
        let response = try await backend.call(
            WebAuthnCreateMethod.self,
            .init(options: options, origin: origin, device: deviceOptions.choice, pin: pin,
                  interactive: interaction.canAnswer),
            interaction: interaction)
        Output.json(response)
    }
}

struct WebAuthnGet: Verb {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Sign in: PublicKeyCredentialRequestOptionsJSON in, AuthenticationResponseJSON out.",
        discussion: """
        With an empty allowCredentials the key offers its discoverable credentials for the \
        relying party; when several match, --user picks one (by user name, display name or \
        base64url user handle), or you are asked on a terminal.
        """)

    @Option(name: .long, help: "The origin the ceremony runs for, e.g. https://example.org.")
    var origin: String
    @Option(name: .long, help: "Which account to use when several discoverable credentials match.")
    var user: String?
    @OptionGroup var input: OptionsInput
    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var pinOptions: PINOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let options = try input.read(PublicKeyCredentialRequestOptionsJSON.self, pinFromStandardInput: pinOptions.pinStdin)
        let interaction = TerminalInteraction(pins: pinOptions.source)
        let pin = try pinOptions.securityKeyPIN()
        let response = try await backend.call(
            WebAuthnGetMethod.self,
            .init(options: options, origin: origin, device: deviceOptions.choice, pin: pin, user: user,
                  interactive: interaction.canAnswer),
            interaction: interaction)
        Output.json(response)
    }
}
