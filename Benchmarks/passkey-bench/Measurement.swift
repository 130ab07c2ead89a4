/// The one way every benchmark here takes its samples: a warm-up that is
/// thrown away (caches, lazy initialisation, the CPU's frequency), then one
/// `ContinuousClock` reading before and after each iteration.
///
/// Medians and percentiles, not means, are reported: on a shared 2-core
/// machine a few iterations are always preempted, and the mean would mostly
/// measure the neighbours.
enum Measurement {
    /// Times `iterations` calls of `body` after `warmUp` untimed ones.
    static func sample(warmUp: Int, iterations: Int, _ body: () throws -> Void) rethrows -> Samples {
        for _ in 0..<warmUp { try body() }
        let clock = ContinuousClock()
        var nanoseconds: [Int64] = []
        nanoseconds.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let start = clock.now
            try body()
            nanoseconds.append((clock.now - start).nanoseconds)
        }
        return Samples(nanoseconds: nanoseconds)
    }

    /// The same for work that awaits (HTTP, a ceremony): the task waits, the clock runs.
    static func sample(warmUp: Int, iterations: Int, _ body: () async throws -> Void) async rethrows -> Samples {
        for _ in 0..<warmUp { try await body() }
        let clock = ContinuousClock()
        var nanoseconds: [Int64] = []
        nanoseconds.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let start = clock.now
            try await body()
            nanoseconds.append((clock.now - start).nanoseconds)
        }
        return Samples(nanoseconds: nanoseconds)
    }
}

/// Timings of one operation, in nanoseconds, in the order they were taken.
struct Samples: Sendable {
    var nanoseconds: [Int64]

    /// Median, percentiles and extremes. An empty sample set has none.
    var summary: Summary? {
        guard !nanoseconds.isEmpty else { return nil }
        let sorted = nanoseconds.sorted()
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        return Summary(count: sorted.count, minimum: sorted[0], median: median,
                       p90: Self.percentile(0.90, ofSorted: sorted), p99: Self.percentile(0.99, ofSorted: sorted),
                       maximum: sorted[sorted.count - 1])
    }

    /// Another percentile than the summary's (p 0…1); nil without samples.
    func percentile(_ p: Double) -> Int64? {
        nanoseconds.isEmpty ? nil : Self.percentile(p, ofSorted: nanoseconds.sorted())
    }

    /// Nearest rank: the smallest sample with at least p of all samples at or below it.
    private static func percentile(_ p: Double, ofSorted sorted: [Int64]) -> Int64 {
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// What the report prints of a sample set (all in nanoseconds).
struct Summary: Sendable, Codable {
    var count: Int
    var minimum: Int64
    var median: Int64
    var p90: Int64
    var p99: Int64
    var maximum: Int64
}

extension Duration {
    /// Whole nanoseconds (saturating; no benchmark here runs for centuries).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue + attoseconds / 1_000_000_000
    }
}
