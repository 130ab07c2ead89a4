import Dispatch
import Logging
import VirtualCard

#if canImport(Glibc)
import Glibc
#endif

extension FuzzTarget {
    /// The vpcd wire protocol as pcscd's driver speaks it, over a real TCP
    /// connection: the input is the byte stream "vpcd" sends (2-byte length
    /// frames: control bytes, APDUs, lengths that lie), then it hangs up.
    /// One `VPCDClient` serves the process's whole run and reconnects after
    /// each input, as it does when pcscd restarts; the card it serves is reset
    /// on every connection (its PIV state, like a real card's, carries over).
    static let vpcd = FuzzTarget(
        name: "vpcd",
        summary: "the byte stream vpcd sends (2-byte big-endian length frames) to a VPCDClient over loopback TCP",
        maximumLength: 4096,
        seeds: {
            let frames: [[UInt8]] = [[0x01], [0x04]] + PIVSeeds.commands.map(\.bytes) + [[0x02], [0x00]]
            return [
                Seed("power-atr-piv-session", PIVSeeds.lengthPrefixed(frames)),
                Seed("zero-length-and-unknown-control", [0x00, 0x00, 0x00, 0x01, 0x07, 0x00, 0x01, 0x04]),
                Seed("length-beyond-input", [0xFF, 0xFF, 0x00, 0xA4]),
                Seed("one-byte-header", [0x00]),
            ]
        },
        run: { bytes in
            let server = VPCDServer.shared
            guard let connection = server.accept() else { throw FuzzFinding("the VPCDClient did not reconnect") }
            defer { close(connection) }
            // Send everything, then hang up our side: the client answers what
            // it could parse and sees the end of the stream.
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { break }  // the client may hang up first on a frame it refuses
                sent += n
            }
            shutdown(connection, Int32(SHUT_WR))
            var buffer = [UInt8](repeating: 0, count: 4096)
            while recv(connection, &buffer, buffer.count, 0) > 0 {}
        })
}

/// The "pcscd" end: a loopback listener and the one `VPCDClient` that connects to it.
final class VPCDServer: Sendable {
    static let shared = VPCDServer()

    private let listener: Int32

    private init() {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(listener, raw, length) == 0 && listen(listener, 4) == 0
                    && getsockname(listener, raw, &length) == 0
            }
        }
        guard bound else { fatalError("cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))") }
        let port = UInt16(bigEndian: address.sin_port)
        let card = PIVSeeds.freshCard()
        let stop: StopSignal
        do { stop = try StopSignal() } catch { fatalError("\(error)") }
        // The client blocks its thread for the life of the process, as in passkey-vcard.
        nonisolated(unsafe) let client = VPCDClient(host: "127.0.0.1", port: port, card: card, stop: stop,
                                                    logger: PIVSeeds.quiet)
        DispatchQueue(label: "passkey-fuzz.vpcd-client").async { try? client.run() }
    }

    /// The client's next connection; nil if it does not come within 5 s.
    func accept() -> Int32? {
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 5000) == 1 else { return nil }
        let fd = Glibc.accept(listener, nil, nil)
        return fd >= 0 ? fd : nil
    }
}
