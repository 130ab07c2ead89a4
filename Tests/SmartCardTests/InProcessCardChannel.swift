import ISO7816
import Logging
import SmartCard
import TestSupport
import VirtualCard
#if canImport(Glibc)
import Glibc
#endif

/// A `CardChannel` straight into a `VirtualCard` in this process: the same
/// bytes pcscd would carry, without pcscd, for fast tests of the applet and
/// the client logic. The PC/SC tests run the same client through the real stack.
final class InProcessCardChannel: CardChannel {
    let readerName = "in-process card"
    let card: VirtualCard
    private(set) var sentCommands: [[UInt8]] = []
    private(set) var receivedResponses: [[UInt8]] = []

    init(card: VirtualCard) { self.card = card }

    func clearSentCommands() {
        sentCommands = []
        receivedResponses = []
    }

    func transmitRaw(_ command: [UInt8]) throws(SmartCardError) -> [UInt8] {
        sentCommands.append(command)
        let response = card.process(apdu: command)
        receivedResponses.append(response)
        // Clients read responses into 258-byte buffers; the card must never send more.
        guard response.count <= 258 else {
            throw .malformedResponse("the card sent \(response.count) bytes in one response APDU")
        }
        return response
    }
}

/// A channel that answers from a script, to drive the chaining logic through
/// cases a well-behaved card never produces (6Cxx).
final class ScriptedCardChannel: CardChannel {
    let readerName = "scripted card"
    private var answers: [[UInt8]]
    private(set) var sentCommands: [[UInt8]] = []

    init(answers: [[UInt8]]) { self.answers = answers }

    func transmitRaw(_ command: [UInt8]) throws(SmartCardError) -> [UInt8] {
        sentCommands.append(command)
        guard !answers.isEmpty else { throw .malformedResponse("the script has no more answers") }
        return answers.removeFirst()
    }
}

enum TestCards {
    /// Quiet: the applet's info logs would only clutter the test output.
    static let logger = Logger(label: "test-card", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A factory-new PIV card in memory (or in `stateFile`).
    static func pivCard(stateFile: CardStateFile? = nil) throws -> (VirtualCard, PIVApplet) {
        let applet = try PIVApplet(stateFile: stateFile, logger: logger)
        return (VirtualCard(applets: [applet], logger: logger), applet)
    }

    /// Opens a card on a state file a card of this process has just let go
    /// of. Its flock can outlive that card for a moment: a child another
    /// test spawns at that instant holds a copy of every descriptor between
    /// clone and exec (close-on-exec or closefrom act only then), and the
    /// lock goes with the last copy. So on "another passkey-vcard is using
    /// it" this waits for the lock to be let go and asks again, for up to
    /// 5 s in all; anything else, or a lock still held then, is thrown as it is.
    static func reopening<Card>(_ open: () throws -> Card) throws -> Card {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            do { return try open() } catch let error as VirtualCardError {
                guard case .stateFile(let path, let reason) = error, reason.hasPrefix("another passkey-vcard is using it"),
                      waitUntilReleased(lockFile: path + ".lock", before: deadline) else { throw error }
            }
        }
    }

    /// Waits for whoever holds the flock on `lockFile` to let it go: a
    /// blocking flock of our own, taken and given back at once, on a thread
    /// of its own so that the wait has a bound. False if the lock was still
    /// held at `deadline` (that thread then waits on, detached) or could not be waited for.
    private static func waitUntilReleased(lockFile: String, before deadline: ContinuousClock.Instant) -> Bool {
        let descriptor = Glibc.open(lockFile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        let released = Signalled<Bool?>(nil)
        do {
            try BackgroundThread {
                var result: Int32
                repeat { result = flock(descriptor, LOCK_EX) } while result != 0 && errno == EINTR
                flock(descriptor, LOCK_UN)  // the open file's lock, whoever else holds a copy of the descriptor
                close(descriptor)
                released.withLock { $0 = result == 0 }
            }.detach()
        } catch {
            close(descriptor)
            return false
        }
        let now = ContinuousClock.now
        released.wait(within: now < deadline ? deadline - now : .zero) { $0 != nil }
        return released.withLock { $0 } == true
    }
}
