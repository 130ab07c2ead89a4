import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// Where the programs a run starts are: this project's own are built beside
/// the running executable (the test bundle, or passkey-bench), the others
/// (pcscd, ssh-agent, OpenSC's tools) are installed.
public enum ProgramPaths {
    /// The directory of the running executable (from /proc/self/exe).
    public static var ownDirectory: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return parent(of: executable)
    }

    /// The path of our product `name` (`passkey`, `passkey-agent`, `passkey-vcard`, …)
    /// built beside the running executable; on Linux the test bundle is a single
    /// executable in the build directory, and an .xctest directory layout is looked through too.
    public static func built(_ name: String) throws(HarnessError) -> String {
        var directory = ownDirectory
        for _ in 0..<3 {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
            directory = parent(of: directory)
        }
        throw HarnessError("\(name) is not built next to \(ownDirectory): run `swift build --product \(name)` first")
    }

    /// A program found on `PATH`, or in /usr/sbin and /sbin, where daemons
    /// live but a user's `PATH` may not look.
    public static func installed(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] where !directory.isEmpty {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
