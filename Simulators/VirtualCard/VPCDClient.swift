import Logging

/// Connects a `VirtualCard` to pcscd's vpcd reader driver and serves it.
///
/// vpcd listens on TCP (port 35963 for slot 0, 35964 for slot 1 with Debian's
/// configuration); this client connects, then answers frames until the
/// connection drops, and connects again with a growing back-off (50 ms up to
/// 1 s) — pcscd restarts, and Debian's socket-activated pcscd exits when idle.
///
/// Frames are a 2-byte big-endian length and a payload. A 1-byte payload is a
/// control byte: 00 power off, 01 power on, 02 reset (no answer), 04 get ATR
/// (answered with the ATR). Anything longer is a command APDU, answered with
/// the response APDU.
public final class VPCDClient {
    public static let defaultHost = "127.0.0.1"
    public static let defaultPort: UInt16 = 35963

    private enum Control {
        static let powerOff: UInt8 = 0x00
        static let powerOn: UInt8 = 0x01
        static let reset: UInt8 = 0x02
        static let getATR: UInt8 = 0x04
    }

    private let host: String
    private let port: UInt16
    private let card: VirtualCard
    private let stop: StopSignal
    private let logger: Logger

    public init(host: String = defaultHost, port: UInt16 = defaultPort, card: VirtualCard,
                stop: StopSignal, logger: Logger) {
        self.host = host
        self.port = port
        self.card = card
        self.stop = stop
        self.logger = logger
    }

    /// Serves the card until `stop` is requested. Fails only if the host name cannot be resolved.
    public func run() throws(VirtualCardError) {
        var delay = Duration.milliseconds(50)
        var lastFailure: String?
        while !stop.isRequested {
            switch VPCDSocket.connect(host: host, port: port, stop: stop) {
            case .failure(.stopped):
                return
            case .failure(.unresolvable(let why)):
                logger.error("cannot resolve \(host): \(why)")
                throw .unresolvableHost(host)
            case .failure(.refused(let why)):
                // Log a change of situation once, not every retry.
                if lastFailure != why {
                    logger.info("waiting for vpcd at \(host):\(port) (\(why)); is pcscd running with the vpcd driver?")
                    lastFailure = why
                }
                if stop.wait(delay) { return }
                delay = min(delay * 2, .seconds(1))
            case .success(let socket):
                logger.info("connected to vpcd at \(host):\(port)")
                lastFailure = nil
                delay = .milliseconds(50)
                card.reset()
                let reason = serve(socket)
                card.reset()
                if stop.isRequested { return }
                logger.info("vpcd connection lost (\(reason)); reconnecting")
            }
        }
    }

    /// Answers frames until the connection ends; returns why it ended.
    private func serve(_ socket: VPCDSocket) -> String {
        while true {
            guard case .bytes(let header) = socket.read(exactly: 2) else {
                return stop.isRequested ? "stopped" : "vpcd closed the connection"
            }
            let length = Int(header[0]) << 8 | Int(header[1])
            if length == 0 { continue }
            let payload: [UInt8]
            switch socket.read(exactly: length) {
            case .bytes(let bytes): payload = bytes
            case .closed(let why): return why
            case .stopped: return "stopped"
            }
            if length == 1 {
                if !handleControl(payload[0], socket: socket) { return "cannot send the ATR" }
            } else {
                let response = card.process(apdu: payload)
                if !socket.writeFrame(response) { return "cannot send the response" }
            }
        }
    }

    private func handleControl(_ control: UInt8, socket: VPCDSocket) -> Bool {
        switch control {
        case Control.getATR:
            return socket.writeFrame(card.atr)
        case Control.powerOff:
            logger.debug("power off")
            card.reset()
        case Control.powerOn:
            logger.debug("power on")
            card.reset()
        case Control.reset:
            logger.debug("reset")
            card.reset()
        default:
            logger.debug("ignoring unknown vpcd control byte \(control)")
        }
        return true
    }
}
