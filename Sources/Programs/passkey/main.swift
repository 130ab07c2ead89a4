import PasskeyCLI

// `passkey` is the light client: the command tree, prompts and the agent's
// socket, nothing that opens a device. Verbs that find no agent (or get
// `--no-agent`) re-run as `passkey-local`, which links the core
// (PasskeyCLI/Runtime/SiblingProgram.swift). Top-level code runs on the main
// thread, and so does the verb (PasskeyCommand.runOnMainThread). The plain
// forms of `status` and `token get`, which scripts run in a loop, skip
// ArgumentParser (PasskeyCLI/Runtime/ScriptedForm.swift); every other command line
// goes through it.
if let form = ScriptedForm(arguments: Array(CommandLine.arguments.dropFirst())) {
    await form.run()
} else {
    await PasskeyCommand.runOnMainThread()
}
