import Foundation
import PIV
import SmartCard
import TestSupport

/// One `passkey-vcard` in a slot of the shared harness pcscd, and the PC/SC
/// waits around it: a test starts it, waits until pcscd sees the card, and at
/// the end stops it and waits until pcscd has noticed the card is gone, so
/// the next test's card is never mistaken for this one.
final class PCSCFixture {
    static let waitLimit: Duration = .seconds(30)

    let harness: PCSCHarness
    let slot: Int
    let card: VirtualCardProcess
    var reader: String { harness.readerName(slot: slot) }

    /// `options` go to `passkey-vcard` (`--applets`, `--presence`, …).
    init(slot: Int = 0, statePath: String? = nil, options: [String] = []) throws {
        harness = try PCSCHarness.shared()
        self.slot = slot
        try Self.waitUntilEmpty(harness.readerName(slot: slot))
        card = try harness.startCard(slot: slot, statePath: statePath, options: options)
        try waitForCard()
    }

    deinit {
        card.stop()
        try? Self.waitUntilEmpty(reader)
    }

    /// A PIV session on the card, through a fresh pcscd context.
    func session() throws -> PIVSession {
        try PIVSession.open(reader: reader, context: SmartCardContext())
    }

    /// Blocks until pcscd reports a card in the reader.
    func waitForCard() throws {
        _ = try SmartCardContext().waitForCard(in: reader, timeout: Self.waitLimit)
    }

    /// Blocks until pcscd reports the reader empty.
    static func waitUntilEmpty(_ reader: String) throws {
        let context = try SmartCardContext()
        var statuses = try context.status()
        while statuses.first(where: { $0.name == reader })?.cardPresent == true {
            statuses = try context.waitForChange(since: statuses, timeout: waitLimit)
        }
    }

    /// Stops the card and waits until pcscd has seen it go.
    func removeCard(kill: Bool = false) throws {
        if kill { card.kill() } else { card.stop() }
        try Self.waitUntilEmpty(reader)
    }

    /// Starts the card again with the same state file and waits until pcscd sees it.
    func reinsertCard() throws {
        try card.start()
        try card.waitUntilConnected()
        try waitForCard()
    }

    /// Runs the built `passkey` with this pcscd and private XDG directories.
    func passkey(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        let home = try TemporaryDirectory.make(prefix: "home", in: harness.directory)
        return try harness.run(try ProgramPaths.built("passkey"), arguments, standardInput: input,
                               extraEnvironment: ["HOME": home, "XDG_CONFIG_HOME": home + "/config",
                                                  "XDG_DATA_HOME": home + "/data", "XDG_RUNTIME_DIR": home,
                                                  "PASSKEY_AGENT_SOCK": home + "/no-agent.sock"])
    }

    /// Runs an installed tool (OpenSC, yubico-piv-tool) against this pcscd.
    func tool(_ name: String, _ arguments: [String]) throws -> ProcessResult {
        guard let path = ["/usr/bin", "/usr/local/bin", "/bin"].map({ $0 + "/" + name })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            throw HarnessError("\(name) is not installed (Debian: `sudo apt install \(name == "pkcs15-tool" ? "opensc" : name)`)")
        }
        let home = try TemporaryDirectory.make(prefix: "home", in: harness.directory)
        return try harness.run(path, arguments, extraEnvironment: ["HOME": home])
    }
}
