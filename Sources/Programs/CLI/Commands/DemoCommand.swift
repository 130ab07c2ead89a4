import AgentProtocol
import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// `passkey demo` runs `passkey-demo`, installed next to `passkey`: the demo
/// embeds the devserver, which `passkey` itself should not carry.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk through register and sign-in against a local passwordless.dev server.",
        discussion: """
        Starts passkey-devserver in-process on 127.0.0.1 (in the passkey-demo program, \
        installed next to passkey), uses the software authenticator with a temporary state \
        (or --device), and runs: a register token from the backend, registration, sign-in by \
        alias, by user id and with a discoverable credential, each verify token checked by \
        the backend — and a replayed one refused.
        """)

    @Option(name: .long, help: "Use this authenticator instead of a temporary software one (e.g. /dev/hidraw0).")
    var device: String?
    @OptionGroup var pinOptions: PINOptions

    func run() throws {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        // Next to this program; if /proc cannot say where that is, on PATH.
        let program: String
        if length > 0 {
            let own = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            program = String(own[..<(own.lastIndex(of: "/") ?? own.startIndex)]) + "/passkey-demo"
        } else {
            program = "passkey-demo"
        }
        var arguments = [program]
        if let device { arguments += ["--device", device] }
        if pinOptions.pinStdin { arguments.append("--pin-stdin") }
        let argv = arguments.map { strdup($0) } + [nil]
        execvp(program, argv)
        // Only reached when exec failed.
        throw Output.fail(AgentError(.internal, "cannot run \(program) (\(String(cString: strerror(errno)))); install passkey-demo next to passkey"),
                          json: false)
    }
}
