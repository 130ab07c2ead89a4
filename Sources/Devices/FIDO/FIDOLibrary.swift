import CFIDO2
import Locking

/// libfido2's process-wide initialisation, done once before any other call.
enum FIDOLibrary {
    private static let initialised = Locked(false)

    static func ensureInitialised() {
        initialised.withLock { done in
            guard !done else { return }
            // A key whose GetInfo fails must be an error, not a silent drop to U2F
            // (reference/protocols.md §1, "First traffic" step 5).
            var flags = FIDO_DISABLE_U2F_FALLBACK
            if getenv("PASSKEY_FIDO_DEBUG") != nil { flags |= FIDO_DEBUG }
            fido_init(flags)
            done = true
        }
    }
}
