#if canImport(Glibc)
import Glibc
#endif

/// A POSIX thread of its own, outside Swift's cooperative pool: servers in
/// the harness and passkey-bench's soak clients block on sockets, and a
/// test blocks its own thread while a child runs, so work that needed the
/// shared pool could starve.
public final class BackgroundThread: @unchecked Sendable {
    // @unchecked: `thread` is written once, in init, and read by join().
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private var thread = pthread_t()

    /// Starts `run` on a new thread; `stackSize` (bytes) for many small threads, nil for the default.
    public init(stackSize: Int? = nil, _ run: @escaping @Sendable () -> Void) throws(HarnessError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        let created = pthread_create(&thread, &attributes, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, body)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(body).release()
            throw HarnessError("starting a thread: \(String(cString: strerror(created)))")
        }
    }

    /// Waits for the thread to end. Call it once, or `detach()` once.
    public func join() { pthread_join(thread, nil) }

    /// Lets the thread end on its own: nobody will join it.
    public func detach() { pthread_detach(thread) }
}
