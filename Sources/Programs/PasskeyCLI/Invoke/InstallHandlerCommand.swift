import AgentProtocol
import ArgumentParser
import Settings
import StandardError

#if canImport(Glibc)
import Glibc
#endif

/// `passkey install-handler`: makes passkey-agent the browser's handler for
/// the invoke URL scheme(s), through D-Bus activation: the .desktop file in
/// the user's `$XDG_DATA_HOME/applications`, the D-Bus service file in
/// `$XDG_DATA_HOME/dbus-1/services` (Config/ shows both), `xdg-mime
/// default` for each scheme, and `update-desktop-database`.
struct InstallHandlerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install-handler",
        abstract: "Register passkey-agent as the handler of the invoke URL scheme(s) for this user.",
        discussion: """
        The default scheme is \(InvokeHandlerFiles.defaultScheme), the one passkey-devserver's \
        Beyond-Identity-like IdP sends to (an identity provider's invoke URL names yours). \
        A link opened on the desktop reaches the agent in a D-Bus message \
        (\(DesktopApplicationID.id) on the session bus; the bus starts the agent if it is not running), \
        never on a command line. Nothing needs root; --uninstall removes the files again and gives each \
        scheme back the handler it had in $XDG_CONFIG_HOME/mimeapps.list before the first install \
        (recorded in $XDG_STATE_HOME/passkey-agent/previous-scheme-handlers), or none.
        """)

    @Option(name: .customLong("scheme"), help: "A URL scheme to handle (repeatable).")
    var schemes: [String] = []
    @Flag(help: "Remove the handler instead.")
    var uninstall = false

    func run() throws {
        let schemes = self.schemes.isEmpty ? [InvokeHandlerFiles.defaultScheme] : self.schemes
        for scheme in schemes where !InvokeHandlerFiles.isScheme(scheme) {
            throw ValidationError("\"\(scheme)\" is not a URL scheme (a letter, then letters, digits, +, - or .)")
        }
        let xdg = XDGDirectories(environment: ProcessEnvironment.current)
        let applications = xdg.dataHome + "/applications"
        let services = xdg.dataHome + "/dbus-1/services"
        let desktopPath = applications + "/" + InvokeHandlerFiles.desktopName
        let servicePath = services + "/" + InvokeHandlerFiles.serviceName
        // The handler of earlier versions, whose Exec put each URL on a command line.
        try Self.remove(applications + "/" + InvokeHandlerFiles.legacyDesktopName)
        let mimeapps = xdg.configHome + "/mimeapps.list"
        let previousPath = xdg.stateHome + "/passkey-agent/previous-scheme-handlers"
        var previous = PreviousSchemeHandlers(text: Self.read(previousPath) ?? "")
        if uninstall {
            try Self.remove(desktopPath)
            try Self.remove(servicePath)
            _ = HelperProgram.run(["update-desktop-database", applications])
            print("Removed \(desktopPath) and \(servicePath).")
            Self.restoreDefaults(mimeapps, previous: &previous)
            try Self.remove(previousPath)
            return
        }
        let passkey = SiblingProgram.path("passkey"), agent = SiblingProgram.path("passkey-agent")
        for path in [passkey, agent] where !InvokeHandlerFiles.isPlainPath(path) {
            throw ValidationError("\(path) has a space, quote or other character an Exec= line cannot hold as written; install passkey elsewhere")
        }
        let unit = InvokeHandlerFiles.hasAgentUnit(.init(configHome: xdg.configHome, dataHome: xdg.dataHome))
        try Self.write(InvokeHandlerFiles.desktopText(passkey: passkey, schemes: schemes), to: desktopPath)
        try Self.write(InvokeHandlerFiles.serviceText(agent: agent, systemdUnit: unit), to: servicePath)
        print("Wrote \(desktopPath) and \(servicePath)\(unit ? " (the bus starts passkey-agent.service)" : "").")
        // What each scheme opened in before, for --uninstall to put back.
        let before = MimeAppsList(text: Self.read(mimeapps) ?? "")
        for scheme in schemes {
            let type = "x-scheme-handler/" + scheme
            let current = before.defaultValue(type)
            if !(current ?? "").split(separator: ";").contains(where: { $0 == InvokeHandlerFiles.desktopName }) {
                previous.record(type, current)
            }
        }
        if !previous.entries.isEmpty { try Self.write(previous.text, to: previousPath) }
        for scheme in schemes {
            if HelperProgram.run(["xdg-mime", "default", InvokeHandlerFiles.desktopName, "x-scheme-handler/" + scheme]) {
                print("Links to \(scheme): now open in passkey-agent, over D-Bus.")
            } else {
                StandardError.writeLine("passkey: xdg-mime could not set the handler of \(scheme) (is xdg-utils installed?)")
            }
        }
        if !HelperProgram.run(["update-desktop-database", applications]) {
            StandardError.writeLine("passkey: update-desktop-database did not run (desktop-file-utils); the handler works once your desktop rereads \(applications)")
        }
    }

    /// Every scheme whose default in mimeapps.list is our handler goes back
    /// to what it was before the first install, or loses its entry when it
    /// had none (the system's default applies again).
    private static func restoreDefaults(_ mimeapps: String, previous: inout PreviousSchemeHandlers) {
        guard let text = read(mimeapps) else { return }
        var list = MimeAppsList(text: text)
        for type in list.schemesHandled(by: InvokeHandlerFiles.desktopName) {
            let others = list.defaultValue(type).map { value in
                value.split(separator: ";").filter { $0 != InvokeHandlerFiles.desktopName && !$0.isEmpty }.map(String.init)
            } ?? []
            let restored = previous.previous(type) ?? nil
            list.setDefault(type, to: restored ?? (others.isEmpty ? nil : others.joined(separator: ";") + ";"))
            print(restored.map { "Links to \(type.dropFirst("x-scheme-handler/".count)) open in \($0) again." }
                  ?? "Links to \(type.dropFirst("x-scheme-handler/".count)) have no handler of this user's any more.")
            previous.forget(type)
        }
        guard list.text != text else { return }
        do { try write(list.text, to: mimeapps) } catch {
            StandardError.writeLine("passkey: \(error); remove the x-scheme-handler lines naming \(InvokeHandlerFiles.desktopName) from \(mimeapps) yourself")
        }
    }

    /// A small text file's content; nil when it is missing, too large or not text.
    private static func read(_ path: String) -> String? {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
            guard bytes.count <= MimeAppsList.sizeLimit else { return nil }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw ValidationError("cannot remove \(path): \(String(cString: strerror(errno)))") }
    }

    /// Writes `text` to `path` (0644), creating its directories; never through a symlink.
    private static func write(_ text: String, to path: String) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard makeDirectories(directory) else { throw ValidationError("cannot create \(directory): \(String(cString: strerror(errno)))") }
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw ValidationError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(file) }
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw ValidationError("cannot write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    private static func makeDirectories(_ path: String) -> Bool {
        var partial = ""
        for part in path.split(separator: "/") {
            partial += "/" + part
            if mkdir(partial, 0o755) != 0 && errno != EEXIST { return false }
        }
        return true
    }
}
