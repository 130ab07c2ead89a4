import AgentProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The URL-scheme handler's two files, as Config/ shows them with this
/// install's paths: the .desktop file that claims the scheme(s) and says
/// `DBusActivatable=true`, and the D-Bus service file that tells the session
/// bus to start passkey-agent for the handler's name. The launcher then
/// sends the URL in a D-Bus message, never on a command line.
enum InvokeHandlerFiles {
    static let desktopName = DesktopApplicationID.desktopFileName
    static let serviceName = DesktopApplicationID.serviceFileName
    /// What `passkey install-handler` wrote before the handler went over D-Bus:
    /// its `Exec=passkey invoke %u` put each URL on a command line. Removed.
    static let legacyDesktopName = "passkey-invoke.desktop"
    static let defaultScheme = "io.github.passkey-agent"

    static func desktopText(passkey: String, schemes: [String]) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=passkey invoke
        GenericName=Passkey sign-in handler
        Comment=Hands sign-in and passkey-binding links from the browser to passkey-agent over D-Bus
        DBusActivatable=true
        Exec=\(passkey) invoke %u
        Terminal=false
        NoDisplay=true
        MimeType=\(schemes.map { "x-scheme-handler/\($0);" }.joined())
        Categories=System;Security;

        """
    }

    /// `SystemdService=` only when the user manager has the unit to start:
    /// a bus started by systemd asks systemd, and fails for a missing unit
    /// instead of falling back to `Exec=`.
    static func serviceText(agent: String, systemdUnit: Bool) -> String {
        var lines = ["[D-BUS Service]", "Name=\(DesktopApplicationID.id)", "Exec=\(agent) --foreground"]
        if systemdUnit { lines.append("SystemdService=passkey-agent.service") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether a systemd user unit `passkey-agent.service` is installed
    /// where the user manager looks (systemd.unit(5), user units).
    static func hasAgentUnit(_ xdg: XDGPlaces) -> Bool {
        let directories = [xdg.configHome + "/systemd/user", xdg.dataHome + "/systemd/user", "/etc/systemd/user",
                           "/usr/local/lib/systemd/user", "/usr/lib/systemd/user"]
        return directories.contains { access($0 + "/passkey-agent.service", F_OK) == 0 }
    }

    struct XDGPlaces {
        var configHome: String
        var dataHome: String
    }

    /// A path an `Exec=` line can hold as it is, with no quoting (both
    /// files' quoting rules differ; plain paths need none).
    static func isPlainPath(_ path: String) -> Bool {
        path.hasPrefix("/") && path.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7f && !"\"'\\`$%;".unicodeScalars.contains($0) }
    }

    /// RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
    static func isScheme(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic, text.utf8.count <= 64 else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) }
    }
}
