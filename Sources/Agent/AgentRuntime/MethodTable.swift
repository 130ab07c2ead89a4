import AgentProtocol
import DecodingErrors
import FoundationEssentials
import Interaction
import Synchronization

/// The methods the core serves, by name. The socket server dispatches JSON
/// through `dispatch`; the in-process CLI calls the same handlers typed,
/// through `call`, so both paths run the same code.
///
/// (Handlers are stored as closures returning `Result`: Swift 6.3's SIL
/// generator crashes on stored typed-throws closures in generic contexts.)
public final class MethodTable: Sendable {
    package typealias JSONHandler = @Sendable (JSONValue?, any UserInteraction) async -> Result<JSONValue, AgentError>
    /// Quick handlers answer with their result already encoded: the socket
    /// writes it into the response line as it is, with no JSONValue in between.
    package typealias QuickHandler = @Sendable (JSONValue?) -> Result<[UInt8], AgentError>

    /// Fast paths read a request line of their own method by hand and
    /// answer it at once when they can — its id, and the result already
    /// encoded — and give nil when the line needs the usual way.
    package typealias FastPath = @Sendable ([UInt8]) -> (id: RPCID, result: [UInt8])?

    private let json: [String: JSONHandler]
    private let waits: [String: AnswerWait]
    private let quick: [String: QuickHandler]
    private let fast: [FastPath]
    private let typed: [ObjectIdentifier: any Sendable]
    /// Requests running now, counted by each way in below: the idle timeout waits for none.
    private let inFlight: RequestCount

    package init(counting inFlight: RequestCount = RequestCount(), _ build: (inout Builder) -> Void) {
        self.inFlight = inFlight
        var builder = Builder()
        build(&builder)
        json = builder.json
        waits = builder.waits
        quick = builder.quick
        // A method that waits on nothing is answered on the I/O thread, so it must have a quick handler.
        for (name, wait) in waits where wait == .nothing {
            precondition(quick[name] != nil, "\(name) waits on nothing but is not registered with registerQuick")
        }
        fast = builder.fast
        typed = builder.typed
    }

    package struct Builder {
        fileprivate var json: [String: JSONHandler] = [:]
        fileprivate var waits: [String: AnswerWait] = [:]
        fileprivate var quick: [String: QuickHandler] = [:]
        fileprivate var fast: [FastPath] = []
        fileprivate var typed: [ObjectIdentifier: any Sendable] = [:]

        /// A method; its handler's errors of any layer become `AgentError`s.
        package mutating func register<M: AgentMethod>(
            _ method: M.Type,
            _ handler: @escaping @Sendable (M.Params, any UserInteraction) async throws -> M.Result
        ) {
            let run: TypedHandler<M>.Run = { params, interaction in
                do { return .success(try await handler(params, interaction)) } catch { return .failure(AgentError(error)) }
            }
            typed[ObjectIdentifier(method)] = TypedHandler<M>(run: run)
            waits[M.name] = M.answerWait
            json[M.name] = { params, interaction in
                switch decode(M.self, params) {
                case .failure(let error): return .failure(error)
                case .success(let decoded): return encode(M.self, await run(decoded, interaction))
                }
            }
        }

        /// A method that never waits (no device, no network): the server may
        /// answer it on its I/O thread, without a task hop.
        package mutating func registerQuick<M: AgentMethod>(
            _ method: M.Type, _ handler: @escaping @Sendable (M.Params) throws -> M.Result
        ) {
            precondition(M.answerWait == .nothing, "\(M.name) is quick but declares that it waits on \(M.answerWait)")
            register(method) { params, _ in try handler(params) }
            quick[M.name] = { params in
                switch decode(M.self, params) {
                case .failure(let error): return .failure(error)
                case .success(let decoded):
                    let result: M.Result
                    do { result = try handler(decoded) } catch { return .failure(AgentError(error)) }
                    do { return .success(Array(try JSONEncoder().encode(result))) } catch {
                        return .failure(AgentError(.internal, "could not encode the result of \(M.name)"))
                    }
                }
            }
        }

        /// A shortcut for a method registered with `register`: `read` takes
        /// the method's request line in a plain form (no JSONDecoder), and
        /// `answer` gives its result, encoded, at once (no waiting, no file
        /// read) when it can. Either returns nil otherwise — then the line
        /// goes the usual way (RequestParser, the method's handler), which
        /// also gives every error. A shortcut never throws: whatever it
        /// cannot answer, the handler can.
        package mutating func registerFastPath<M: AgentMethod>(_ method: M.Type, read: @escaping @Sendable ([UInt8]) -> (id: Int64, params: M.Params)?,
                                                       answer: @escaping @Sendable (M.Params) -> [UInt8]?) {
            fast.append { line in
                guard let (id, params) = read(line), let result = answer(params) else { return nil }
                return (.number(id), result)
            }
        }
    }

    fileprivate struct TypedHandler<M: AgentMethod>: Sendable {
        package typealias Run = @Sendable (M.Params, any UserInteraction) async -> Result<M.Result, AgentError>
        package let run: Run
    }

    public var methodNames: [String] { json.keys.sorted() }

    /// What answering `method` may wait on, as the method declares it; an
    /// unknown method counts as waiting on a person (the longest wait, no turns).
    public func answerWait(method: String) -> AnswerWait { waits[method] ?? .person }

    /// Runs `method` with JSON params; unknown methods are `method_not_found`.
    public func dispatch(method: String, params: JSONValue?, interaction: any UserInteraction) async throws(AgentError) -> JSONValue {
        guard let handler = json[method] else {
            throw AgentError(.methodNotFound, "unknown method \(method)")
        }
        inFlight.begin()
        defer { inFlight.end() }
        return try await handler(params, interaction).get()
    }

    /// Answers a quick method at once with its result as JSON; nil when `method` is not a quick one.
    public func dispatchQuick(method: String, params: JSONValue?) throws(AgentError) -> [UInt8]? {
        guard let handler = quick[method] else { return nil }
        inFlight.begin()
        defer { inFlight.end() }
        return try handler(params).get()
    }

    /// A fast path's answer to a request line — its id, and the result
    /// already encoded; nil when no fast path reads the line or none can
    /// answer it at once.
    public func dispatchFast(line: [UInt8]) -> (id: RPCID, result: [UInt8])? {
        inFlight.begin()
        defer { inFlight.end() }
        for path in fast { if let answer = path(line) { return answer } }
        return nil
    }

    /// Runs a method with typed params (the in-process path).
    public func call<M: AgentMethod>(_ method: M.Type, _ params: M.Params,
                                     interaction: any UserInteraction) async throws(AgentError) -> M.Result {
        guard let handler = typed[ObjectIdentifier(method)] as? TypedHandler<M> else {
            throw AgentError(.methodNotFound, "unknown method \(M.name)")
        }
        inFlight.begin()
        defer { inFlight.end() }
        return try await handler.run(params, interaction).get()
    }
}

/// How many requests a method table is running now. The runtime holds it,
/// so `agent.status` can say it, and hands it to the table, which counts.
public final class RequestCount: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    public var current: Int { count.load(ordering: .relaxed) }
    fileprivate func begin() { count.add(1, ordering: .relaxed) }
    fileprivate func end() { count.subtract(1, ordering: .relaxed) }
}

private func decode<M: AgentMethod>(_ method: M.Type, _ params: JSONValue?) -> Result<M.Params, AgentError> {
    // A method that takes no params, called without any: nothing to decode.
    if params == nil, let none = NoParams() as? M.Params { return .success(none) }
    do {
        return .success(try (params ?? .object([:])).decode(as: M.Params.self))
    } catch {
        return .failure(AgentError(.invalidParams, "invalid params for \(M.name): \(DecodingErrorText.describe(error))"))
    }
}

private func encode<M: AgentMethod>(_ method: M.Type, _ result: Result<M.Result, AgentError>) -> Result<JSONValue, AgentError> {
    result.flatMap { value in
        do { return .success(try JSONValue(encoding: value)) } catch {
            return .failure(AgentError(.internal, "could not encode the result of \(M.name)"))
        }
    }
}
