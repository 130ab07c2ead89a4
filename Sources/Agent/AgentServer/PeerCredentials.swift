import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Who is on the other end of an accepted connection, as the kernel saw it
/// at connect(2) (SO_PEERCRED, socket(7)).
struct PeerCredentials: Sendable, Equatable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32

    /// Reads SO_PEERCRED from an accepted NIO channel.
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        // Glibc's `struct ucred` needs _GNU_SOURCE, which Swift's Glibc module
        // does not define; this struct has its layout (pid_t, uid_t, gid_t).
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return future
    }
}
