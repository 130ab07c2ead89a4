import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs each test on a thread outside Swift's cooperative pool, and no more
/// than `TestSlots.shared`'s width of tests at once.
///
/// Why: the pool has one thread per core (two on the CI machine) and never
/// grows. Most tests here are synchronous and block while a child process,
/// a socket or pcscd answers; two of them blocking at once stopped every
/// other test, Swift Testing's own time limits included, for as long as
/// they waited (a CI run stalled 50 s, and a test with a one-minute limit
/// that never blocks was reported over its limit). Under this trait a test's
/// body, and the child tasks it starts, run on `BlockingTestThreads`, which
/// has a thread for every job, so blocking costs only the test that blocks.
/// The pool's two threads were also, by accident, what kept the blocking
/// tests from all starting their agents, servers and cards at once; the
/// slots now do that on purpose, waiting without holding a thread.
///
/// Every suite carries it (`@Suite(.ownThreads)`; scripts/test checks).
public struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(BlockingTestThreads.shared) {
            // A suite's scope holds no slot (its tests wait for theirs inside it);
            // each test case, the unit that runs, holds one. A test with a time
            // limit does not wait: Swift Testing's clock runs from before this
            // scope, so time in the queue would count against the limit.
            guard testCase != nil, !test.isSuite, test.timeLimit == nil else { return try await function() }
            await TestSlots.shared.acquire()
            defer { TestSlots.shared.release() }
            try await function()
        }
    }
}

/// How many test cases run at once: `PASSKEY_TEST_WIDTH`, or three per core.
/// Waiting for a slot suspends the test's task; it holds no thread.
public final class TestSlots: @unchecked Sendable {
    // @unchecked: `free` and `waiting` are read and written only under `mutex`.
    public static let shared = TestSlots(width: TestSlots.configuredWidth())

    public let width: Int
    private var mutex = pthread_mutex_t()
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) {
        self.width = width
        free = width
        pthread_mutex_init(&mutex, nil)
    }

    /// How many slots tests hold now.
    public var inUse: Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return width - free
    }

    static func configuredWidth() -> Int {
        if let text = getenv("PASSKEY_TEST_WIDTH"), let width = Int(String(cString: text)), width > 0 { return width }
        return 3 * max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    func acquire() async {
        pthread_mutex_lock(&mutex)
        if free > 0 {
            free -= 1
            pthread_mutex_unlock(&mutex)
            return
        }
        await withCheckedContinuation { continuation in
            waiting.append(continuation)
            pthread_mutex_unlock(&mutex)
        }
    }

    func release() {
        pthread_mutex_lock(&mutex)
        guard !waiting.isEmpty else {
            free += 1
            pthread_mutex_unlock(&mutex)
            return
        }
        // The slot passes straight to the longest waiter.
        let next = waiting.removeFirst()
        pthread_mutex_unlock(&mutex)
        next.resume()
    }
}

extension Trait where Self == OwnThreads {
    /// Each test runs on a thread of its own, outside the cooperative pool: see `OwnThreads`.
    public static var ownThreads: Self { OwnThreads() }
}

/// A task executor that never lets a job wait for a busy thread: a job goes
/// to an idle thread, or to a new one when none is idle. Threads stay for
/// the next job; the test process has as many as tests ever blocked at once.
public final class BlockingTestThreads: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `idle` are read and written only under `mutex`.
    public static let shared = BlockingTestThreads()

    private var mutex = pthread_mutex_t()
    private var jobAdded = pthread_cond_t()
    private var jobs: [UnownedJob] = []
    private var jobsTaken = 0
    /// Threads waiting in `next()`, including ones woken but not yet running.
    private var idle = 0
    private var started = 0

    private init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&jobAdded, nil)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(&mutex)
        jobs.append(job)
        let startThread = jobs.count - jobsTaken > idle
        if startThread { started += 1 }
        pthread_cond_signal(&jobAdded)
        let number = started
        pthread_mutex_unlock(&mutex)
        if startThread { startWorker(number) }
    }

    private func startWorker(_ number: Int) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, { raw in
            let executor = Unmanaged<BlockingTestThreads>.fromOpaque(raw!).takeUnretainedValue()
            executor.work()
            return nil
        }, Unmanaged.passUnretained(self).toOpaque())
        // Without a thread the job would wait forever: stop loudly instead.
        precondition(created == 0, "starting test thread \(number): \(String(cString: strerror(created)))")
    }

    /// Marks the threads of this executor, for `isCurrentThreadOurs`.
    private static let marker: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create")
        return key
    }()

    /// Whether the calling thread is one of this executor's.
    public static var isCurrentThreadOurs: Bool { pthread_getspecific(marker) != nil }

    private func work() {
        pthread_setspecific(Self.marker, Unmanaged.passUnretained(self).toOpaque())
        let executor = asUnownedTaskExecutor()
        while true { next().runSynchronously(on: executor) }
    }

    private func next() -> UnownedJob {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while jobsTaken == jobs.count {
            idle += 1
            pthread_cond_wait(&jobAdded, &mutex)
            idle -= 1
        }
        let job = jobs[jobsTaken]
        jobsTaken += 1
        if jobsTaken > 1024 {
            jobs.removeFirst(jobsTaken)
            jobsTaken = 0
        }
        return job
    }
}
