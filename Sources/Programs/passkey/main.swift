import PasskeyCLI

// Top-level code runs on the main actor, where Swift 6 resolves
// `PasskeyCommand.main()` to ArgumentParser's synchronous entry point (which
// refuses an async root command); from a nonisolated async function it picks
// the async one.
func runPasskey() async {
    await PasskeyCommand.main()
}

await runPasskey()
