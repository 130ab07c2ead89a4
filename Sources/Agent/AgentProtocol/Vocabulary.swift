// Part of this protocol's vocabulary, so a user of AgentProtocol gets them too:
// `JSONValue` (every message's params, result and error data travel as one)
// and the reports libraries give in the form the methods answer with.
@_exported import BoundedJSON
@_exported import Reports
