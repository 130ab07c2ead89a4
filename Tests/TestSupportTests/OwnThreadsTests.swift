import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The suites' `.ownThreads` trait keeps blocking tests off Swift's
/// cooperative pool (see OwnThreads): if a test body ran on the pool again,
/// two tests waiting for children would stall the whole run.
@Suite(.ownThreads) struct OwnThreadsTests {
    @Test func aSynchronousTestBodyRunsOnATestThread() {
        #expect(BlockingTestThreads.isCurrentThreadOurs)
    }

    @Test func aRunningTestHoldsOneOfTheSlots() {
        #expect((1...TestSlots.shared.width).contains(TestSlots.shared.inUse))
    }

    @Test(arguments: [1, 2]) func eachCaseOfAParameterizedTestRunsOnATestThreadInASlot(_ argument: Int) {
        #expect(BlockingTestThreads.isCurrentThreadOurs)
        #expect((1...TestSlots.shared.width).contains(TestSlots.shared.inUse))
    }

    @Test func childTasksOfATestRunOnTestThreadsToo() async {
        let ours = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 { group.addTask { BlockingTestThreads.isCurrentThreadOurs } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(ours == [true, true, true, true])
    }

    @Test func blockedTestThreadsDoNotHoldUpTheNextJob() async {
        // Each child blocks its thread until all have started: with threads
        // only from a fixed pool of two, the third would never start.
        let started = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    started.increment()
                    while started.value < 6 { usleep(1_000) }
                }
            }
        }
        #expect(started.value == 6)
    }
}

private final class Counter: @unchecked Sendable {
    // @unchecked: `count` is read and written only under `mutex`.
    private var mutex = pthread_mutex_t()
    private var count = 0
    init() { pthread_mutex_init(&mutex, nil) }
    func increment() { pthread_mutex_lock(&mutex); count += 1; pthread_mutex_unlock(&mutex) }
    var value: Int { pthread_mutex_lock(&mutex); defer { pthread_mutex_unlock(&mutex) }; return count }
}
