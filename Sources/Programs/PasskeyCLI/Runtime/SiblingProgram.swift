import AgentProtocol

#if canImport(Glibc)
import Glibc
#endif

/// The programs `passkey` execs (`passkey-local`, `passkey-demo`), installed
/// next to it: replacing this process keeps its arguments' meaning, its
/// terminal, standard input and exit status.
enum SiblingProgram {
    /// `name` in the directory of this executable; if /proc cannot say where
    /// that is, `name` alone (looked up on PATH by `exec`).
    static func path(_ name: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return name }
        let own = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(own[..<(own.lastIndex(of: "/") ?? own.startIndex)]) + "/" + name
    }

    /// Replaces this process with `name` run with `arguments` (the first is
    /// its argv[0]); returns only when that failed, with the error to report.
    static func exec(_ name: String, arguments: [String]) -> AgentError {
        let program = path(name)
        let argv = arguments.map { strdup($0) } + [nil]
        execvp(program, argv)
        // Only reached when exec failed.
        let reason = String(cString: strerror(errno))
        for argument in argv { free(argument) }
        return AgentError(.internal, "cannot run \(program) (\(reason)); install \(name) next to passkey")
    }
}

/// `passkey-local`: the same command tree linked with the agent's core.
/// When no agent answers (or with `--no-agent`), the light `passkey`
/// becomes it, with the same command line, so the verb runs in-process
/// exactly as before — and only then pays for loading libfido2 and pcsc-lite.
enum LocalProgram {
    static let name = "passkey-local"

    static func handOver() -> AgentError {
        SiblingProgram.exec(name, arguments: CommandLine.arguments)
    }
}
