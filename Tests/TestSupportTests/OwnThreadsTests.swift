import Testing
import TestSupport

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
        // only from a fixed pool of two, the third would never start. (The
        // bound only makes such a regression fail instead of hang; a child
        // that gave up waiting says so.)
        let started = Signalled(0)
        let sawAllStarted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    started.withLock { $0 += 1 }
                    return started.wait(within: .seconds(60)) { $0 == 6 }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(sawAllStarted == [Bool](repeating: true, count: 6), "all six children ran at once")
        #expect(started.withLock { $0 } == 6)
    }
}
