import AgentClient
import AgentProtocol
import ArgumentParser
import Settings
#if canImport(Glibc)
import Glibc
#endif

/// The command lines scripts run in a loop, read without ArgumentParser:
/// `passkey status` and `passkey token get ACCOUNT`, with `--json`,
/// `--no-agent` and (token get) `--min-valid N` or `--min-valid=N`, in any
/// order after the verb, each at most once.
///
/// Why: on every run ArgumentParser builds its command tree and reflects the
/// chosen command's property wrappers, which makes the Swift runtime
/// instantiate its generic types by mangled name and scan the binary's 4,600
/// protocol-conformance records for each new lookup: about 40 % of the CPU
/// of a `passkey token get`, half of it a fixed cost of its own (the
/// `--generate-completion-script` check) that no way of declaring our
/// commands avoids (docs/BENCHMARKS.md, "The light client").
///
/// Only the plainest spellings are accepted, each one that ArgumentParser
/// reads to the same values; anything else — help, `--`, a repeated or
/// unknown flag, a value that starts with `-`, a number with a sign — is
/// left to ArgumentParser (`init` returns nil), which parses or rejects it
/// as always. The verb then runs the same code either way (VerbRun and the
/// commands' static bodies). `passkey-local` never takes this path, and
/// CLIScenarios/ScriptedFormTests runs every accepted form through `passkey` and
/// `passkey-local` and compares output and exit status.
package enum ScriptedForm: Equatable {
    case status(json: Bool, noAgent: Bool)
    case tokenGet(account: String, minValid: Int, json: Bool, noAgent: Bool)

    /// `arguments`: the command line without the program's name.
    package init?(arguments: [String]) {
        let takesAccount: Bool
        let rest: ArraySlice<String>
        if arguments.first == "status" {
            takesAccount = false
            rest = arguments.dropFirst()
        } else if arguments.count >= 2, arguments[0] == "token", arguments[1] == "get" {
            takesAccount = true
            rest = arguments.dropFirst(2)
        } else {
            return nil
        }
        var json = false, noAgent = false
        var account: String?
        var minValid: Int?
        var index = rest.startIndex
        while index < rest.endIndex {
            let argument = rest[index]
            index += 1
            switch argument {
            case "--json":
                guard !json else { return nil }
                json = true
            case "--no-agent":
                guard !noAgent else { return nil }
                noAgent = true
            case "--min-valid":
                guard takesAccount, minValid == nil, index < rest.endIndex,
                      let seconds = Self.seconds(rest[index]) else { return nil }
                minValid = seconds
                index += 1
            default:
                if takesAccount, minValid == nil, argument.hasPrefix("--min-valid=") {
                    guard let seconds = Self.seconds(argument.dropFirst("--min-valid=".count)) else { return nil }
                    minValid = seconds
                } else if takesAccount, account == nil, Self.isPlainValue(argument) {
                    account = argument
                } else {
                    return nil
                }
            }
        }
        if takesAccount {
            guard let account else { return nil }
            self = .tokenGet(account: account, minValid: minValid ?? TokenGetMethod.defaultMinValid, json: json, noAgent: noAgent)
        } else {
            self = .status(json: json, noAgent: noAgent)
        }
    }

    /// Runs the verb; on failure, exits as ArgumentParser's `main()` would
    /// with the same error (message already printed, the kind's exit status).
    package func run() async {
        do throws(ExitCode) {
            switch self {
            case .status(let json, let noAgent):
                try await VerbRun.run(noAgent: noAgent, json: json) { backend throws(AgentError) in
                    try await StatusCommand.show(on: backend, json: json)
                }
            case .tokenGet(let account, let minValid, let json, let noAgent):
                if !json, !noAgent, let result = Self.quickAccessToken(account: account, minValid: minValid) {
                    TokenGet.warnIfShortLived(result, minValid: minValid)
                    Output.line(result.accessToken)
                    return
                }
                try await VerbRun.run(noAgent: noAgent, json: json) { backend throws(AgentError) in
                    try await TokenGet.printToken(account: account, minValid: minValid, format: json ? .json : .raw, on: backend)
                }
            }
        } catch {
            PasskeyCommand.exit(withError: error)
        }
    }

    /// The agent's answer to `token get`'s plainest form, asked and read by
    /// hand (AgentConnection.quickAccessToken: no JSONEncoder/JSONDecoder, no
    /// environment dictionary), so the command scripts loop on costs about
    /// what oidc-agent's `oidc-token` does (docs/BENCHMARKS.md, "peers").
    /// Nil whenever the answer is anything but a plain success: then the
    /// usual path runs and asks again — an error is said exactly as before.
    private static func quickAccessToken(account: String, minValid: Int) -> AccessTokenResult? {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        guard let path = AgentPaths.socket(explicit: variable("PASSKEY_AGENT_SOCK"), runtimeDirectory: variable("XDG_RUNTIME_DIR"))
        else { return nil }
        return AgentConnection.quickAccessToken(path: path, account: account, minValid: minValid)
    }

    /// A positional value as ArgumentParser reads it: not empty, no leading `-`.
    private static func isPlainValue(_ argument: String) -> Bool {
        !argument.isEmpty && !argument.hasPrefix("-")
    }

    /// Decimal digits only (no sign, no spaces), as `Int(_:)` reads them;
    /// nil for anything else, or a number too large for `Int`.
    private static func seconds(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        return Int(text)
    }
}
