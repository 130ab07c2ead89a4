import ArgumentParser
import BuildInfo
import Dispatch
import Logging
import VirtualAuthenticator
import VirtualCard
#if canImport(Glibc)
import Glibc
#endif

/// `passkey-vcard`: a virtual smart card (PIV and FIDO2 applets) behind pcscd's vpcd reader.
struct VirtualCardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey-vcard",
        abstract: "A virtual PIV and FIDO2 smart card for pcscd's vpcd reader driver (vsmartcard-vpcd).",
        discussion: """
        The card connects to vpcd, which pcscd loads from /etc/reader.conf.d/vpcd: port 35963 is \
        the reader "Virtual PCD 00 00", port 35964 is "Virtual PCD 00 01". It keeps answering \
        and reconnects when pcscd restarts. A new card has PIN 123456, PUK 12345678 and the \
        default 3DES management key 010203040506070801020304050607080102030405060708.

        The FIDO2 applet (AID A0 00 00 06 47 2F 00 01) is the virtual USB authenticator's \
        CTAP 2.1 engine over CTAP's NFC framing, for PC/SC clients such as python-fido2. A new \
        one has no PIN; it models a PIN-only key unless --built-in-uv is given. The simulated \
        user answers every touch request as --presence says: approve, deny, timeout, \
        timeout:<ms> or approve-after:<ms>.

        The state file holds the card's private keys, management key and FIDO2 credentials \
        (the member fido2): it is created with \
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

    @Option(help: ArgumentHelp("The card's applets, comma-separated: piv, fido2.", valueName: "list"))
    var applets: String = "piv,fido2"

    @Option(help: ArgumentHelp("What the simulated user does when the FIDO2 applet asks for a touch.",
                               valueName: "policy"))
    var presence: String = "approve"

    @Option(help: ArgumentHelp("What the simulated user does when asked for a fingerprint (with --built-in-uv).",
                               valueName: "policy"))
    var verification: String = "approve"

    @Flag(help: "The FIDO2 applet has built-in user verification (a fingerprint) beside the PIN.")
    var builtInUV = false

    @Flag(help: "Log every command's header and status word (never data).")
    var verbose = false

    func validate() throws {
        _ = try Self.appletNames(applets)
        _ = try fido2Configuration()
    }

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

        let memory = try CardMemory(file: CardStateFile(path: statePath))
        var cardApplets: [any Applet] = []
        // What the start-up line says; "serving PIV card <serial>" as before the FIDO2 applet.
        var served: [String] = []
        for name in try Self.appletNames(applets) {
            switch name {
            case "piv":
                let piv = try PIVApplet(memory: memory, logger: logger)
                cardApplets.append(piv)
                served.append("PIV card \(piv.serialNumber)")
            default:
                cardApplets.append(try FIDO2Applet(memory: memory, configuration: fido2Configuration(), logger: logger))
                served.append("FIDO2 (presence \(presence), built-in UV \(builtInUV ? "on" : "off"))")
            }
        }
        let card = VirtualCard(applets: cardApplets, logger: logger)
        logger.info("passkey-vcard serving \(served.joined(separator: " and ")) from \(statePath)")
        try VPCDClient(host: host, port: port, card: card, stop: stop, logger: logger).run()
        logger.info("stopped")
        withExtendedLifetime(sources) {}
    }

    /// The applet names of `--applets`: known, not repeated, at least one.
    static func appletNames(_ list: String) throws -> [String] {
        let names = list.split(separator: ",", omittingEmptySubsequences: false).map {
            String($0.filter { $0 != " " }).lowercased()
        }
        for name in names where name != "piv" && name != "fido2" {
            throw ValidationError("--applets: unknown applet \"\(name)\"; the applets are piv and fido2")
        }
        guard Set(names).count == names.count else { throw ValidationError("--applets names an applet twice") }
        return names
    }

    func fido2Configuration() throws -> VirtualAuthenticatorConfiguration {
        do {
            return VirtualAuthenticatorConfiguration(
                presence: try UserActionPolicy(parsing: presence, source: "--presence"),
                verification: try UserActionPolicy(parsing: verification, source: "--verification"),
                builtInUV: builtInUV)
        } catch {
            throw ValidationError(error.description)
        }
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
