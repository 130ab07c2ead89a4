import PasskeyCLI

// `passkey` is the light client: the command tree, prompts and the agent's
// socket, nothing that opens a device. Verbs that find no agent (or get
// `--no-agent`) re-run as `passkey-local`, which links the core
// (CLI/Runtime/SiblingProgram.swift). Top-level code runs on the main
// thread, and so does the verb (PasskeyCommand.runOnMainThread).
await PasskeyCommand.runOnMainThread()
