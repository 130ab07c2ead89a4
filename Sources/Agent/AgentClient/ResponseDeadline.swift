import AgentProtocol

/// How long the CLI waits for the agent's answer to one request before it
/// says the agent is stuck. Chosen so a live agent is never cut short:
/// - methods the agent answers on its I/O thread without waiting on
///   anything (`agent.status`, `agent.lock`): 10 s;
/// - methods that wait on no person, only on the vault's disk and at most a
///   token endpoint (HTTP connect 5 s, whole request 15 s; concurrent
///   refreshes of one account share one): 60 s;
/// - everything else may wait for a touch, a PIN, a card or a queue of
///   requests to one device. The agent itself ends every request at 300 s
///   (answering `timeout`), so the CLI waits that long plus 15 s.
enum ResponseDeadline {
    static let quick = Duration.seconds(10)
    static let noPerson = Duration.seconds(60)
    static let agentRequestLimit = Duration.seconds(300)
    static let mayWaitForAPerson = agentRequestLimit + .seconds(15)

    static func forMethod<M: AgentMethod>(_ method: M.Type) -> Duration {
        switch M.answerWait {
        case .nothing: return quick
        case .machine: return noPerson
        case .person: return mayWaitForAPerson
        }
    }
}
