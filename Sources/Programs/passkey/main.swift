import PasskeyCLI

// `passkey` is the light client: the command tree, prompts and the agent's
// socket, nothing that opens a device. Verbs that find no agent (or get
// `--no-agent`) re-run as `passkey-local`, which links the core
// (CLI/Runtime/SiblingProgram.swift).
//
// Top-level code runs on the main actor, where Swift 6 resolves
// `PasskeyCommand.main()` to ArgumentParser's synchronous entry point (which
// refuses an async root command); from a nonisolated async function it picks
// the async one.
func runPasskey() async {
    await PasskeyCommand.main()
}

await runPasskey()
