import Dispatch
import SmartCard
import Synchronization

/// Watches the reader of the card that unlocked the vault and calls
/// `onGone` once when the card leaves it (or when pcscd can no longer tell:
/// a vault that cannot be watched is locked too).
///
/// It waits on a pcscd context of its own, on a thread of its own
/// (`SCardGetStatusChange` blocks), in slices of two seconds so that
/// `stop()` is prompt even if its `SCardCancel` races the next wait.
public final class CardPresenceWatch: Sendable {
    public let readerName: String
    private let context: SmartCardContext
    private let stopped = Atomic<Bool>(false)

    private init(readerName: String, context: SmartCardContext) {
        self.readerName = readerName
        self.context = context
    }

    /// Starts watching `readerName`; `onGone` gets a one-line reason.
    public static func start(readerName: String,
                             onGone: @escaping @Sendable (String) -> Void) throws(VaultError) -> CardPresenceWatch {
        let context: SmartCardContext
        do {
            context = try SmartCardContext()
        } catch {
            throw PIVCard.vaultError(.smartCard(error))
        }
        let watch = CardPresenceWatch(readerName: readerName, context: context)
        let queue = DispatchQueue(label: "passkey.vault.card-watch")
        queue.async { watch.run(onGone: onGone) }
        return watch
    }

    /// Stops watching; `onGone` is not called after this returns… unless it was already running.
    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        context.cancelWait()
    }

    private func run(onGone: @Sendable (String) -> Void) {
        var statuses: [ReaderStatus]
        do {
            statuses = try context.status()
        } catch {
            if !stopped.load(ordering: .sequentiallyConsistent) { onGone("pcscd cannot be asked about the card: \(error)") }
            return
        }
        while !stopped.load(ordering: .sequentiallyConsistent) {
            guard statuses.first(where: { $0.name == readerName })?.cardPresent == true else {
                onGone("the card was removed from \"\(readerName)\"")
                return
            }
            do {
                statuses = try context.waitForChange(since: statuses, timeout: .seconds(2))
            } catch .timedOut {
                continue
            } catch .cancelled {
                continue
            } catch {
                if !stopped.load(ordering: .sequentiallyConsistent) { onGone("pcscd stopped answering about the card: \(error)") }
                return
            }
        }
    }
}
