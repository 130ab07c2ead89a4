/// What answering a method may wait on; each method declares it
/// (`AgentMethod.answerWait`).
///
/// Both sides size things by it: a client, how long it waits for the answer
/// before it calls the agent stuck; the agent, whether a connection may run
/// the request beside its others. Requests that wait on no person take turns
/// (one at a time per connection), so a client that pipelines hundreds of
/// `token.list`s gets one turn in the shared pool, like a client that sends
/// one `token.get`; a request that waits for a touch or a PIN never holds
/// up the connection's other requests.
public enum AnswerWait: Sendable, Equatable {
    /// Answered at once on the agent's I/O thread (`agent.status`, `agent.lock`).
    case nothing
    /// The vault's disk and at most a token endpoint: never a person.
    case machine
    /// A touch, a PIN, a card, or a queue of requests to one device.
    /// Unknown methods count as this: the longest wait, and no turn-taking.
    /// (`login.begin` is one: an okta-idx login reaches a key ceremony.)
    case person
}
