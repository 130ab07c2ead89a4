// `JSONValue` is part of this protocol's vocabulary: every message's params,
// result and error data travel as one, so a user of AgentProtocol gets it too.
@_exported import BoundedJSON
