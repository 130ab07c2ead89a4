import ArgumentParser
import BuildInfo
import Dispatch
import Logging
import VirtualCard
#if canImport(Glibc)
import Glibc
#endif

/// `passkey-vcard`: a virtual PIV smart card behind pcscd's vpcd reader.
struct VirtualCardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey-vcard",
        abstract: "A virtual PIV smart card for pcscd's vpcd reader driver (vsmartcard-vpcd).",
        discussion: """
        The card connects to vpcd, which pcscd loads from /etc/reader.conf.d/vpcd: port 35963 is \
        the reader "Virtual PCD 00 00", port 35964 is "Virtual PCD 00 01". It keeps answering \
        and reconnects when pcscd restarts. A new card has PIN 123456, PUK 12345678 and the \
        default 3DES management key 010203040506070801020304050607080102030405060708.

        The state file holds the card's private keys and management key: it is created with \
        mode 0600 in a 0700 directory; keep it private.
        """,
        version: BuildInfo.versionLine(program: "passkey-vcard"))

    @Option(help: "The host vpcd listens on.")
    var host: String = VPCDClient.defaultHost

    @Option(help: "vpcd's port: 35963 for slot 00, 35964 for slot 01.")
    var port: UInt16 = VPCDClient.defaultPort

    @Option(help: ArgumentHelp("The card's state file (default: $XDG_DATA_HOME/passkey-agent/vcard.json).",
                               valueName: "file"))
    var state: String?

    @Flag(help: "Log every command's header and status word (never data).")
    var verbose = false

    func run() throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .info
            return handler
        }
        let logger = Logger(label: "passkey-vcard")
        let statePath = try state ?? Self.defaultStatePath()

        let stop = try StopSignal()
        // SIGTERM and SIGINT end the serving loop; the state on disk is always
        // complete (every change is written atomically before the card answers).
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { stop.request() }
            source.resume()
            sources.append(source)
        }

        let applet = try PIVApplet(stateFile: CardStateFile(path: statePath), logger: logger)
        let card = VirtualCard(applets: [applet], logger: logger)
        logger.info("passkey-vcard serving PIV card \(applet.serialNumber) from \(statePath)")
        try VPCDClient(host: host, port: port, card: card, stop: stop, logger: logger).run()
        logger.info("stopped")
        withExtendedLifetime(sources) {}
    }

    /// `$XDG_DATA_HOME/passkey-agent/vcard.json`, or `~/.local/share/passkey-agent/vcard.json`.
    static func defaultStatePath() throws -> String {
        if let dataHome = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), dataHome.hasPrefix("/") {
            return dataHome + "/passkey-agent/vcard.json"
        }
        guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") else {
            throw ValidationError("neither XDG_DATA_HOME nor HOME is set; pass --state FILE")
        }
        return home + "/.local/share/passkey-agent/vcard.json"
    }
}

VirtualCardCommand.main()
