import AgentProtocol
import PasskeyCLI
import Settings

#if canImport(Glibc)
import Glibc
#endif

/// The narrated walk-through: one temporary world, the chapters asked for
/// (all by default) in order, each ending with what it verified, then the
/// commands to run next on your own machine.
struct Demo {
    var device: String?
    var pins: PINSource
    /// The security key's PIN from --pin-stdin: given to every command that
    /// may touch the key. With the software authenticator, the demo first sets
    /// it as that key's PIN, so the chapters run as they would on a PIN-protected key.
    var keyPIN: String?
    /// The chapters to run; empty: all.
    var chapters: [Int]
    /// Leave the card out even when pcscd and vpcd are installed (the chapters then say what they would run).
    var noCard = false

    static let titles = [
        1: "passkeys with passwordless.dev",
        2: "a vault opened by your security key (and a PIV card)",
        3: "passkey login, token get, refresh with rotation",
        4: "lock, refused while locked, unlock with a touch",
        5: "Okta + Beyond Identity: a bound passkey, an invoke URL",
        6: "Okta IDX with the security key: enrol, sign in again",
        7: "NFC: the same key operations over PC/SC",
    ]

    func run() async throws(AgentError) {
        let selected = chapters.isEmpty ? Self.titles.keys.sorted() : Array(Set(chapters)).sorted()
        if let unknown = selected.first(where: { Self.titles[$0] == nil }) {
            throw AgentError(.invalidInput, "there is no chapter \(unknown): chapters are 1 to \(Self.titles.count)")
        }
        let say = DemoNarrator()
        let scratch = try Self.temporaryDirectory()
        defer { Self.remove(scratch) }
        say.say("passkey demo — passkeys, the hardware-keyed vault, login, refresh, lock, Okta + Beyond Identity, Okta IDX, NFC.")
        say.say("Everything runs on this machine: passkey-devserver on loopback, a passkey-agent of the demo's own, "
                + (device == nil ? "the software authenticator." : "the security key at \(device!)."))
        let began = ContinuousClock.now
        let world = try await DemoWorld(scratch: scratch, device: device, pins: pins, keyPIN: keyPIN)
        var timings: [(Int, Duration)] = []
        do {
            // The card goes in before the agent starts: the agent must find the private pcscd.
            if noCard {
                world.pcscMissing = "--no-card"
            } else if let device, device.hasPrefix("pcsc:") {
                // A private pcscd would hide the system's readers, where that key is.
                world.pcscMissing = "--device \(device) is on the system's pcscd"
            } else if selected.contains(2) || selected.contains(7) {
                try await world.startCard()
            }
            for number in selected {
                say.chapter(number, Self.titles[number]!)
                let started = ContinuousClock.now
                let verified = try await chapter(number, world: world, say: say)
                timings.append((number, ContinuousClock.now - started))
                if !verified.isEmpty { say.verified(verified) }
            }
        } catch {
            await world.shutdown()
            throw error
        }
        await world.shutdown()
        say.say("\nTimes: " + timings.map { "chapter \($0.0) \(Self.seconds($0.1))" }.joined(separator: ", ")
                + "; \(Self.seconds(ContinuousClock.now - began)) in all, the servers, agent and card included")
        say.say("""

            Next, on your own machine:
              passkey vault init --slot fido2         # a vault your security key opens
              passkey login work --issuer https://YOUR-ORG.okta.com/oauth2/default --client-id YOUR-CLIENT-ID
              passkey token get work                  # a fresh access token, refreshed when needed
            """)
    }

    private func chapter(_ number: Int, world: DemoWorld, say: DemoNarrator) async throws(AgentError) -> String {
        switch number {
        case 1: return try await PasswordlessChapter(world: world, say: say).run()
        case 2: return try await VaultChapter(world: world, say: say).run()
        case 3: return try await LoginChapter(world: world, say: say).run()
        case 4: return try await LockChapter(world: world, say: say).run()
        case 5: return try await BeyondIdentityChapter(world: world, say: say).run()
        case 6: return try await IDXChapter(world: world, say: say).run()
        case 7: return try await NFCChapter(world: world, say: say).run()
        default: throw AgentError(.invalidInput, "chapter \(number) is not written yet")
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return "\(milliseconds) ms"
    }

    static func temporaryDirectory() throws(AgentError) -> String {
        let base = ProcessEnvironment.current["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/passkey-demo.XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw AgentError(.internal, "cannot create a temporary directory in \(base)")
        }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func remove(_ directory: String) {
        // The demo's own scratch directory: its files, then the directory.
        if let handle = opendir(directory) {
            while let entry = readdir(handle) {
                // Read in place, up to its NUL: a readdir record can end before a whole dirent,
                // so copying d_name (a 256-byte tuple) reads past it (SecureFiles' DirectoryEntries).
                let field = UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                let name = String(cString: field.assumingMemoryBound(to: CChar.self))
                if name != "." && name != ".." { removeTree(directory + "/" + name) }
            }
            closedir(handle)
        }
        rmdir(directory)
    }

    private static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR { remove(path) } else { unlink(path) }
    }
}
