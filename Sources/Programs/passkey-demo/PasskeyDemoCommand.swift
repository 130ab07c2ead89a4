import ArgumentParser
import BuildInfo
import PasskeyCLI

/// `passkey-demo` (what `passkey demo` runs): the whole passwordless.dev flow
/// on this machine — a strict server in this process on loopback, the
/// software authenticator, and the same core every verb uses — narrated
/// step by step. A program of its own so that `passkey` does not link the
/// server (Hummingbird brings Foundation, which slows every start-up).
@main
struct PasskeyDemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey demo",
        abstract: "Walk through register and sign-in against a local passwordless.dev server.",
        discussion: """
        Starts passkey-devserver in this process on 127.0.0.1, uses the software \
        authenticator with a temporary state (or --device), and runs: a register token from \
        the backend, registration, sign-in by alias, by user id and with a discoverable \
        credential, each verify token checked by the backend — and a replayed one refused.
        """,
        version: BuildInfo.versionLine(program: "passkey-demo"))

    @Option(name: .long, help: "Use this authenticator instead of a temporary software one (e.g. /dev/hidraw0).")
    var device: String?
    @OptionGroup var pinOptions: PINOptions

    init() {}

    func run() async throws {
        do {
            try await Demo(device: device, pins: pinOptions.source).run()
        } catch {
            throw Output.fail(error, json: false)
        }
    }
}
