import AgentProtocol

/// Every layer's error, turned into the one error the socket and the CLI
/// speak: the one place that does it. Each error type maps itself
/// (`AgentErrorMapping`, one file per source layer beside this one) with an
/// exhaustive switch over its cases — no `default` — so a case a library
/// adds does not compile until someone decides what it means to a client.
/// Each layer's messages are already one clear line without secrets; the
/// mapping adds the machine-readable kind and facts such as `triesLeft`.
/// `MethodTable` applies it to whatever a handler throws.
package protocol AgentErrorMapping: Error {
    var agentError: AgentError { get }
}

extension AgentError {
    /// An error of no type that maps itself is not one of ours (a runtime
    /// or a third-party failure that escaped its library): `internal`.
    public init(_ error: any Error) {
        if let error = error as? AgentError {
            self = error
        } else if let mapped = error as? any AgentErrorMapping {
            self = mapped.agentError
        } else {
            self.init(.internal, "unexpected error: \(error)")
        }
    }
}

extension CancellationError: AgentErrorMapping {
    package var agentError: AgentError { AgentError(.cancelled, "the request was cancelled") }
}
