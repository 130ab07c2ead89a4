/// The test targets import TestSupport alone and get the harness with it:
/// child processes, the private pcscd and virtual cards, the agent, the
/// socket client and the token endpoint (Harness/, shared with passkey-bench).
@_exported import Harness
