#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A way to ask a blocking `VPCDClient.run()` to return, from any thread
/// (a signal handler's dispatch source, a test).
///
/// It is a pipe: `run()` polls its read end alongside the socket, so a stop
/// interrupts a wait for vpcd as well as a wait for the next command.
public final class StopSignal: Sendable {
    let readEnd: Int32
    private let writeEnd: Int32
    private let requested = Atomic<Bool>(false)

    public init() throws(VirtualCardError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw .socket("cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    public var isRequested: Bool { requested.load(ordering: .acquiring) }

    public func request() {
        requested.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Sleeps for `duration` or until a stop is requested; returns true when stopped.
    func wait(_ duration: Duration) -> Bool {
        if isRequested { return true }
        var pollFD = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(duration.components.seconds * 1000
                                 + duration.components.attoseconds / 1_000_000_000_000_000)
        _ = poll(&pollFD, 1, milliseconds)
        return isRequested
    }
}
