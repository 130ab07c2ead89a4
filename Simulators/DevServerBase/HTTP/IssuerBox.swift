import Locking

/// The server's origin, set once the listening port is known (before the
/// start-up line announces it).
package final class IssuerBox: Sendable {
    private let value = Locked("")

    package init() {}

    package var origin: String { value.withLock { $0 } }

    package func set(origin: String) { value.withLock { $0 = origin } }
}
