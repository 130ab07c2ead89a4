import AgentCore
import AgentProtocol
import FoundationEssentials
import Locking
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The forwarding sockets of one agent: `forward.open`, `forward.list` and
/// `forward.close`, answered on the agent's own socket only. Each forward is
/// a second `AgentServer` on `forward-<random>.sock` beside the agent's socket,
/// whose every connection is held to its `ForwardPolicy`.
final class ForwardRegistry: Sendable {
    /// More would only be forgotten ones; each holds a socket open.
    static let maxOpen = 16
    /// A week: a forward meant to outlive that is one to open again.
    static let maxTTLSeconds = 7 * 86_400
    static let maxAccounts = 64

    private struct Open: Sendable {
        let info: ForwardInfo
        let server: AgentServer
        let policy: ForwardPolicy
        let socket: ListeningSocket
        let expiry: Task<Void, Never>?
    }

    private let core: AgentCore
    private let directory: String
    private let limits: AgentServer.Limits
    private let logger: Logger
    /// `reserved`: opens under way, counted against `maxOpen` before their socket exists.
    private let forwards = Locked<(open: [Int: Open], nextID: Int, reserved: Int)>(([:], 1, 0))

    init(core: AgentCore, directory: String, limits: AgentServer.Limits, logger: Logger) {
        self.core = core
        self.directory = directory
        self.limits = limits
        self.logger = logger
    }

    /// Answers a `forward.*` request; nil for any other method.
    func dispatch(method: String, params: JSONValue?) -> Result<JSONValue, AgentError>? {
        func run<M: AgentMethod>(_: M.Type, _ body: (M.Params) throws(AgentError) -> M.Result) -> Result<JSONValue, AgentError> {
            let decoded: M.Params
            do {
                if params == nil, let none = NoParams() as? M.Params { decoded = none } else {
                    decoded = try (params ?? .object([:])).decode(as: M.Params.self)
                }
            } catch {
                return .failure(AgentError(.invalidParams, "invalid params for \(M.name): \(error)"))
            }
            do throws(AgentError) {
                let result = try body(decoded)
                do { return .success(try JSONValue(encoding: result)) } catch {
                    return .failure(AgentError(.internal, "could not encode the result of \(M.name)"))
                }
            } catch {
                return .failure(error)
            }
        }
        switch method {
        case ForwardOpenMethod.name: return run(ForwardOpenMethod.self) { params throws(AgentError) in try open(params) }
        case ForwardListMethod.name: return run(ForwardListMethod.self) { _ in ForwardList(forwards: list()) }
        case ForwardCloseMethod.name: return run(ForwardCloseMethod.self) { params throws(AgentError) in try close(params.id) }
        default: return nil
        }
    }

    func open(_ params: ForwardOpenMethod.Params) throws(AgentError) -> ForwardInfo {
        let accounts = params.accounts
        guard !accounts.isEmpty, accounts.count <= Self.maxAccounts,
              accounts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 }) else {
            throw AgentError(.invalidParams, "forward.open needs 1 to \(Self.maxAccounts) account names (the only tokens the forward may give)")
        }
        let allow = params.allow ?? ForwardPolicy.defaultAllow
        if let wider = allow.first(where: { !ForwardPolicy.forwardable.contains($0) }) {
            throw AgentError(.invalidParams, "a forward cannot serve \(wider): only \(ForwardPolicy.forwardable.sorted().joined(separator: " and ")) may go through one")
        }
        let ttl = params.ttlSeconds ?? 0
        guard (0...Self.maxTTLSeconds).contains(ttl) else {
            throw AgentError(.invalidParams, "ttlSeconds must be between 0 (until closed) and \(Self.maxTTLSeconds)")
        }
        let confirmation = params.confirm ?? .always
        let id: Int = try forwards.withLock { state throws(AgentError) in
            guard state.open.count + state.reserved < Self.maxOpen else {
                throw AgentError(.tooManyConnections, "\(Self.maxOpen) forwards are open already; close one (passkey forward --list)")
            }
            state.reserved += 1
            defer { state.nextID += 1 }
            return state.nextID
        }
        let path = directory + "/forward-" + String(UInt64.random(in: .min ... .max), radix: 16) + ".sock"
        let socket: ListeningSocket
        do { socket = try ListeningSocket.create(at: path, backlog: 16) } catch {
            forwards.withLock { $0.reserved -= 1 }
            throw AgentError(.internal, "could not open the forwarding socket: \(error.description)")
        }
        // ttl is at most maxTTLSeconds (checked above); the sum saturates all the same.
        let sum = Int64(Date().timeIntervalSince1970).addingReportingOverflow(Int64(clamping: ttl))
        let expiresAt = ttl > 0 ? (sum.overflow ? Int64.max : sum.partialValue) : nil
        let info = ForwardInfo(id: id, path: path, accounts: accounts, allow: allow, confirm: confirmation, expiresAt: expiresAt)
        let policy = ForwardPolicy(id: id, path: path, accounts: Set(accounts), allow: Set(allow), confirmation: confirmation)
        let server = AgentServer(core: core, socket: socket, limits: limits, logger: logger, forward: policy)
        let expiry: Task<Void, Never>? = ttl > 0 ? Task { [weak self] in
            // The agent's timers are tasks that sleep (Daemon.swift): cancelled when closed first.
            guard (try? await Task.sleep(for: .seconds(ttl))) != nil else { return }
            self?.logger.info("forward expired", metadata: ["forward": "\(id)"])
            _ = try? self?.close(id)
        } : nil
        forwards.withLock {
            $0.reserved -= 1
            $0.open[id] = Open(info: info, server: server, policy: policy, socket: socket, expiry: expiry)
        }
        Task { try? await server.run() }
        logger.info("forward opened", metadata: ["forward": "\(id)", "socket": "\(path)", "accounts": "\(accounts.joined(separator: ","))",
                                                 "allow": "\(allow.joined(separator: ","))", "confirm": "\(confirmation.rawValue)", "ttl": "\(ttl)"])
        return info
    }

    func list() -> [ForwardInfo] {
        forwards.withLock { $0.open.values.map(\.info) }.sorted { $0.id < $1.id }
    }

    /// Stops serving the forward, drops its connections and removes its file at once.
    @discardableResult
    func close(_ id: Int) throws(AgentError) -> ForwardInfo {
        guard let open = forwards.withLock({ $0.open.removeValue(forKey: id) }) else {
            throw AgentError(.notFound, "no forward \(id) is open (passkey forward --list)")
        }
        open.policy.end()
        open.expiry?.cancel()
        open.socket.removeFile()
        open.server.shutdown()
        logger.info("forward closed", metadata: ["forward": "\(id)"])
        return open.info
    }

    func closeAll() {
        for info in list() { _ = try? close(info.id) }
    }
}
