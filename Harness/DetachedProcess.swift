#if canImport(Glibc)
import Glibc
#endif
import CSpawn

/// A process the tests did not spawn and cannot reap — an agent that put
/// itself in the background, one a shell or the session bus started — held
/// by a pidfd. Signalling it later reaches that process or nothing: a bare
/// `kill(pid, …)` in a test's cleanup, after the process had ended, once
/// killed another test's server that had been given the same pid (pid_max is
/// 32768 here, and a test run's threads and children wrap it quickly).
public final class DetachedProcess: Sendable {
    public let pid: pid_t
    private let descriptor: Int32

    /// The process `pid` if it runs now and `isOurs` holds for it (judged from
    /// /proc while the pidfd pins the process); nil when it has ended or the
    /// pid belongs to some other process.
    public init?(pid: pid_t, isOurs: (pid_t) -> Bool) {
        guard pid > 1 else { return nil }
        let descriptor = pidfd_open(pid, 0)
        guard descriptor >= 0 else { return nil }
        self.pid = pid
        self.descriptor = descriptor
        // The pidfd was opened first, so if its process is still alive after
        // the check, the pid named it all along and the check was about it.
        guard isOurs(pid), !hasEnded else { return nil }
    }

    /// The process `pid` if it runs now and its environment has the entry
    /// `entry` ("NAME=value", say a test's own HOME).
    public convenience init?(pid: pid_t, environmentEntry entry: String) {
        self.init(pid: pid) { pid in
            TextFile.read("/proc/\(pid)/environ").split(separator: "\0").contains { $0 == entry }
        }
    }

    deinit { close(descriptor) }

    /// Whether the process has ended (a zombie counts as ended).
    public var hasEnded: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    /// Sends `signal`; false when the process has ended already.
    @discardableResult
    public func signal(_ signal: Int32) -> Bool { pidfd_send_signal(descriptor, signal, nil, 0) == 0 }

    /// Waits up to `timeout` seconds for the process to end.
    public func waitForEnd(timeout: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var result: Int32
        repeat { result = poll(&entry, 1, timeout * 1000) } while result < 0 && errno == EINTR
        return result == 1
    }
}
