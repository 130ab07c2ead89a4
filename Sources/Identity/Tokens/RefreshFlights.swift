/// Concurrent requests for one key share one piece of work: the first
/// starts it, the others wait for its result. `token get` uses it so that
/// eight simultaneous gets of an expired token make one refresh request —
/// and one refresh-token rotation, not eight racing ones.
///
/// The work runs in a task of its own: a caller that gives up (hangs up)
/// does not cancel it, so a rotated refresh token is always saved.
public actor RefreshFlights<Key: Hashable & Sendable, Value: Sendable> {
    private var running: [Key: Task<Value, any Error>] = [:]

    public init() {}

    public func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let flight = running[key] { return try await flight.value }
        let flight = Task { try await work() }
        running[key] = flight
        defer { running[key] = nil }
        return try await flight.value
    }

    /// How many keys have work in flight (for tests and status).
    public var inFlight: Int { running.count }
}
