#if canImport(Glibc)
import Glibc
#endif

/// Work that blocks — `sd_bus_wait`, a pinentry dialog waiting for the
/// person — on a detached POSIX thread of its own: blocking a thread of
/// Swift's cooperative pool (two threads on a 2-core machine) would stall
/// every request the agent serves.
public enum OwnThread {
    /// Starts `body`; 0, or the error number pthread_create gave.
    public static func detach(_ body: @escaping @Sendable () -> Void) -> Int32 {
        final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let created = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, box)
        guard created == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return created
        }
        pthread_detach(thread)
        return 0
    }

    /// Runs `body` on a thread of its own and waits for it without holding
    /// a pool thread; `failed` when no thread could be made.
    public static func run<T: Sendable>(failed: T, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            if detach({ continuation.resume(returning: body()) }) != 0 { continuation.resume(returning: failed) }
        }
    }
}
