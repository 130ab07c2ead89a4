import AgentProtocol
import ArgumentParser
import Settings
import StandardError

#if canImport(Glibc)
import Glibc
#endif

/// `passkey install-handler`: makes `passkey invoke` the browser's handler
/// for the invoke URL scheme(s) — a .desktop file in the user's
/// `$XDG_DATA_HOME/applications` (the one Config/passkey-invoke.desktop
/// shows, with this `passkey`'s absolute path), `xdg-mime default` for each
/// scheme, and `update-desktop-database`.
struct InstallHandlerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install-handler",
        abstract: "Register `passkey invoke` as the handler of the invoke URL scheme(s) for this user.",
        discussion: """
        The default scheme is \(InvokeHandlerFile.defaultScheme), the one passkey-devserver's \
        Beyond-Identity-like IdP sends to (an identity provider's invoke URL names yours). \
        Nothing needs root; --uninstall removes the file again.
        """)

    @Option(name: .customLong("scheme"), help: "A URL scheme to handle (repeatable).")
    var schemes: [String] = []
    @Flag(help: "Remove the handler instead.")
    var uninstall = false

    func run() throws {
        let schemes = self.schemes.isEmpty ? [InvokeHandlerFile.defaultScheme] : self.schemes
        for scheme in schemes where !InvokeHandlerFile.isScheme(scheme) {
            throw ValidationError("\"\(scheme)\" is not a URL scheme (a letter, then letters, digits, +, - or .)")
        }
        let directory = XDGDirectories(environment: ProcessEnvironment.current).dataHome + "/applications"
        let path = directory + "/" + InvokeHandlerFile.name
        if uninstall {
            guard unlink(path) == 0 || errno == ENOENT else { throw ValidationError("cannot remove \(path): \(String(cString: strerror(errno)))") }
            _ = HelperProgram.run(["update-desktop-database", directory])
            print("Removed \(path).")
            return
        }
        guard Self.makeDirectories(directory) else { throw ValidationError("cannot create \(directory)") }
        let text = InvokeHandlerFile.text(passkey: SiblingProgram.path("passkey"), schemes: schemes)
        guard let file = fopen(path, "w") else { throw ValidationError("cannot write \(path): \(String(cString: strerror(errno)))") }
        fputs(text, file)
        fclose(file)
        print("Wrote \(path).")
        for scheme in schemes {
            if HelperProgram.run(["xdg-mime", "default", InvokeHandlerFile.name, "x-scheme-handler/" + scheme]) {
                print("Links to \(scheme): now open with `passkey invoke`.")
            } else {
                StandardError.writeLine("passkey: xdg-mime could not set the handler of \(scheme) (is xdg-utils installed?)")
            }
        }
        if !HelperProgram.run(["update-desktop-database", directory]) {
            StandardError.writeLine("passkey: update-desktop-database did not run (desktop-file-utils); the handler works once your desktop rereads \(directory)")
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

/// The handler's .desktop file: what Config/passkey-invoke.desktop holds,
/// with the absolute path of `passkey` and the schemes asked for.
enum InvokeHandlerFile {
    static let name = "passkey-invoke.desktop"
    static let defaultScheme = "io.github.passkey-agent"

    static func text(passkey: String, schemes: [String]) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=passkey invoke
        GenericName=Passkey sign-in handler
        Comment=Hands sign-in and passkey-binding links from the browser to passkey-agent
        Exec=\(passkey) invoke %u
        Terminal=false
        NoDisplay=true
        MimeType=\(schemes.map { "x-scheme-handler/\($0);" }.joined())
        Categories=System;Security;

        """
    }

    /// RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
    static func isScheme(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic, text.utf8.count <= 64 else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) }
    }
}
