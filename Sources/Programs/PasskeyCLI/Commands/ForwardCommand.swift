import AgentProtocol
import ArgumentParser
import FoundationEssentials

/// `passkey forward`: opens a restricted socket in the agent for `ssh -R`
/// (docs/PROTOCOL.md, "Forwarding") and prints how to use it; `--list` and
/// `--close ID` manage the open ones.
struct ForwardCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "forward",
        abstract: "Open a restricted socket to forward with ssh -R: tokens of the listed accounts only, each confirmed here.",
        discussion: """
        The remote host gets only `token get` for the --account names (and the agent's status); \
        every other request is refused. Whoever is root there can use the forward while it is open: \
        --confirm always (the default) asks you here with pinentry for each token, and --ttl closes it by itself.
        """)

    @OptionGroup var runOptions: RunOptions

    @Option(name: .customLong("account"), help: "An account whose token the remote host may get (repeat for more).")
    var accounts: [String] = []

    @Option(help: "The methods served, comma-separated (default and at most: token.get,agent.status).")
    var allow: String?

    @Option(help: "When to ask you before a token leaves: always, first (once per account) or never.")
    var confirm: ForwardConfirm = .always

    @Option(help: "Close the forward after this long: seconds, or a number with s, m, h or d (default: until --close).")
    var ttl: String?

    @Option(help: "The socket path on the remote host (default /tmp/passkey-agent-forward-ID.sock).")
    var remotePath: String?

    @Flag(help: "List the open forwards.")
    var list = false

    @Option(help: "Close the forward with this id.")
    var close: Int?

    func validate() throws {
        if list || close != nil {
            guard accounts.isEmpty, allow == nil, ttl == nil, remotePath == nil else {
                throw ValidationError("--list and --close take no --account, --allow, --ttl or --remote-path")
            }
        } else {
            guard !accounts.isEmpty else { throw ValidationError("name at least one --account the remote host may get a token for") }
            if let ttl { _ = try Self.seconds(ttl) }
        }
    }

    func execute(on backend: Backend) async throws(AgentError) {
        guard case .agent = backend else {
            throw AgentError(.unsupported, "passkey forward needs a running passkey-agent: start one (passkey-agent, or its systemd unit)")
        }
        let interaction = TerminalInteraction(pins: .interactive)
        if list {
            let open = try await backend.call(ForwardListMethod.self, NoParams(), interaction: interaction)
            if runOptions.json { Output.json(open); return }
            if open.forwards.isEmpty { Output.line("No forward is open.") }
            for forward in open.forwards { Output.line(Self.describe(forward)) }
            return
        }
        if let close {
            let closed = try await backend.call(ForwardCloseMethod.self, .init(id: close), interaction: interaction)
            if runOptions.json { Output.json(closed); return }
            Output.line("Closed forward \(closed.id); \(closed.path) is gone.")
            return
        }
        let ttlSeconds: Int?
        do { ttlSeconds = try ttl.map(Self.seconds) } catch { throw AgentError(.invalidInput, "\(error)") }
        let methods = allow?.split(separator: ",").map { String($0.filter { $0 != " " }) }
        let opened = try await backend.call(
            ForwardOpenMethod.self,
            .init(accounts: accounts, allow: methods, confirm: confirm, ttlSeconds: ttlSeconds), interaction: interaction)
        if runOptions.json { Output.json(opened); return }
        let remote = remotePath ?? "/tmp/passkey-agent-forward-\(opened.id).sock"
        Output.line(Self.describe(opened))
        Output.line("On this machine:   ssh -o StreamLocalBindUnlink=yes -R \(remote):\(opened.path) HOST")
        Output.line("On the remote host: export PASSKEY_AGENT_SOCK=\(remote)")
        Output.line("Close it with:     passkey forward --close \(opened.id)")
    }

    static func describe(_ forward: ForwardInfo) -> String {
        let until = forward.expiresAt.map { "until \(Date(timeIntervalSince1970: Double($0)).formatted(.iso8601))" } ?? "until closed"
        return "forward \(forward.id): \(forward.path)  accounts \(forward.accounts.joined(separator: ",")), "
            + "serves \(forward.allow.joined(separator: ",")), confirm \(forward.confirm.rawValue), \(until)"
    }

    /// `90`, `90s`, `15m`, `8h`, `1d`: exact, positive, at most a week.
    static func seconds(_ text: String) throws -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text)
        var unit = 1
        if let last = text.last, let factor = units[last] { unit = factor; digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), digits.count <= 7,
              let count = Int(digits), count > 0, case let (seconds, overflow) = count.multipliedReportingOverflow(by: unit),
              !overflow, seconds <= 7 * 86_400 else {
            throw ValidationError("--ttl takes a duration from 1s to 7d, such as 90s, 15m, 8h or 1d, not \(text)")
        }
        return seconds
    }
}

extension ForwardConfirm: ExpressibleByArgument {}
