import PasskeyCLI

await PasskeyCommand.main()
