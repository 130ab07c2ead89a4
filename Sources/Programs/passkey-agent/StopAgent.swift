import StandardError
#if canImport(Glibc)
import Glibc
#endif

/// `passkey-agent -k`: stops the agent `$PASSKEY_AGENT_PID` names and prints
/// the lines that forget it, as `ssh-agent -k` does. Unlike ssh-agent it
/// first checks that the process is a passkey-agent of this user: a stale
/// PID, reused by another program since, is not sent a signal.
enum StopAgent {
    static func run(environment: [String: String], syntax: ShellSyntax) -> Never {
        guard let text = environment["PASSKEY_AGENT_PID"] else {
            fail("PASSKEY_AGENT_PID not set, cannot stop the agent")
        }
        // An exact conversion of outside text: digits only, 2...Int32.max as ssh-agent asks.
        guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ (48...57).contains($0) }),
              let number = Int32(text), number >= 2 else {
            fail("PASSKEY_AGENT_PID=\"\(printable(text))\", which is not a good PID")
        }
        if let problem = notOurAgent(number) {
            fail("PASSKEY_AGENT_PID=\(number) \(problem): nothing stopped")
        }
        guard kill(number, SIGTERM) == 0 else {
            fail("cannot stop pid \(number): \(String(cString: strerror(errno)))")
        }
        print(syntax.unset("PASSKEY_AGENT_SOCK"))
        print(syntax.unset("PASSKEY_AGENT_PID"))
        print("echo passkey-agent pid \(number) stopped;")
        exit(0)
    }

    /// Why `pid` is not a passkey-agent of this user, or nil when it is:
    /// /proc/PID is owned by our uid and its executable is named passkey-agent
    /// (" (deleted)" when the program was replaced since, by an install).
    static func notOurAgent(_ pid: Int32) -> String? {
        var info = stat()
        guard stat("/proc/\(pid)", &info) == 0 else { return "is not running" }
        guard info.st_uid == getuid() else { return "belongs to another user" }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "cannot be inspected (\(String(cString: strerror(errno))))" }
        var executable = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if executable.hasSuffix(" (deleted)") { executable.removeLast(" (deleted)".count) }
        let name = executable.split(separator: "/").last.map(String.init) ?? executable
        return name == "passkey-agent" ? nil : "is not a passkey-agent (it runs \(printable(executable)))"
    }

    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(200).filter { $0.value >= 0x20 && $0.value != 0x7F }))
    }

    private static func fail(_ message: String) -> Never {
        StandardError.write("passkey-agent: \(message)\n")
        exit(1)
    }
}
