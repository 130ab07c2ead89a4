import Harness

#if canImport(Glibc)
import Glibc
#endif

/// Where the programs the benchmark runs are: this project's own beside the
/// benchmark executable (one `swift build -c release --product passkey-bench`
/// builds them all), the others on `PATH`.
struct Programs {
    var passkey: String
    var passkeyAgent: String
    /// The virtual PIV card for pcscd's vpcd driver (the vault group's PIV slot).
    var passkeyVirtualCard: String
    /// The minimal C epoll server, the agent's round-trip floor (built beside the benchmark).
    var epollFloor: String

    /// `directory` overrides where `passkey`, `passkey-agent` and `passkey-vcard` are looked for.
    init(directory: String?) {
        let base = directory ?? ProgramPaths.ownDirectory
        passkey = base + "/passkey"
        passkeyAgent = base + "/passkey-agent"
        passkeyVirtualCard = base + "/passkey-vcard"
        epollFloor = ProgramPaths.ownDirectory + "/passkey-bench-epoll"
    }

    /// A program found on `PATH` (and in /usr/sbin and /sbin), or an error
    /// naming the Debian package that has it.
    func required(_ name: String) throws(BenchError) -> String {
        if let path = ProgramPaths.installed(name) { return path }
        let package = name.hasPrefix("ssh") ? "openssh-client" : name.hasPrefix("oidc-") ? "oidc-agent-cli"
            : name == "pcscd" ? "pcscd" : "coreutils"
        throw .missingProgram(name, hint: "install it (apt-get install \(package))")
    }

    /// `path`, one of ours, if it is there; else an error saying how to build it.
    static func built(_ path: String) throws(BenchError) -> String {
        guard access(path, X_OK) == 0 else {
            throw .missingProgram(path, hint: "build it with `swift build -c release --product passkey-bench`, or install it")
        }
        return path
    }
}
