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
        commandName: "passkey-demo",
        abstract: "Walk through the whole product on this machine, each step verified.",
        discussion: """
        Starts passkey-devserver in this process on 127.0.0.1 (passwordless.dev, Okta-like, \
        Beyond-Identity-like and Okta IDX servers), a passkey-agent of its own with temporary \
        XDG directories, the software authenticator (or --device) and, when pcscd and the vpcd \
        driver are installed, passkey-vcard on a private pcscd. Chapters: 1 passkeys with \
        passwordless.dev; 2 a vault opened by the key's hmac-secret (and a PIV card); 3 passkey \
        login, token get, refresh with rotation; 4 lock and unlock; 5 Okta + Beyond Identity \
        invoke URLs; 6 Okta IDX with the security key; 7 NFC over PC/SC. Each ends with the line \
        of what it verified.
        """,
        version: BuildInfo.versionLine(program: "passkey-demo"))

    @Option(name: .long, help: "Use this authenticator instead of a temporary software one (e.g. /dev/hidraw0).")
    var device: String?
    @Option(name: .long, help: "Run only this chapter (1 to 7); repeat it for several. Default: all.")
    var chapter: [Int] = []
    @Flag(name: .long, help: "Leave the virtual card out even when pcscd and vpcd are installed.")
    var noCard = false
    @OptionGroup var pinOptions: PINOptions

    init() {}

    func run() async throws {
        do {
            // One PIN for every chapter: read once, before anything starts.
            let keyPIN = pinOptions.pinStdin ? try pinOptions.source.read("security key PIN", description: "") : nil
            try await Demo(device: device, pins: pinOptions.source, keyPIN: keyPIN, chapters: chapter, noCard: noCard).run()
        } catch {
            throw Output.fail(error, json: false)
        }
    }
}
