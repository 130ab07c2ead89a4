import Settings

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

    /// `directory` overrides where `passkey`, `passkey-agent` and `passkey-vcard` are looked for.
    init(directory: String?) {
        let base = directory ?? Self.ownDirectory
        passkey = base + "/passkey"
        passkeyAgent = base + "/passkey-agent"
        passkeyVirtualCard = base + "/passkey-vcard"
    }

    /// The directory this executable lives in (from /proc/self/exe).
    static var ownDirectory: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "." }
        let path = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }

    /// A program found on `PATH` (and in /usr/sbin and /sbin, where daemons
    /// live but a user's `PATH` may not look), or an error naming the Debian
    /// package that has it.
    func required(_ name: String) throws(BenchError) -> String {
        let path = ProcessEnvironment.current["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        let package = name.hasPrefix("ssh") ? "openssh-client" : name == "pcscd" ? "pcscd" : "coreutils"
        throw .missingProgram(name, hint: "install it (apt-get install \(package))")
    }
}
