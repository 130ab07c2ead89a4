import Foundation
import Testing
import TestSupport

/// `passkey --help` reads as a man page does: what it is and USAGE first,
/// the subcommands, then the exit statuses, wrapped to 80 columns. The same
/// through the light `passkey` and `passkey-local`, however the help is asked for.
@Suite(.ownThreads) struct CommandLineHelpTests {
    let harness: AgentHarness
    init() throws { harness = try AgentHarness() }

    @Test("passkey's help: overview and USAGE first, the exit statuses after the subcommands", arguments: [
        ["--help"], ["-h"], ["help"], [],
    ])
    func usageFirstExitStatusesLast(_ arguments: [String]) throws {
        for program in ["passkey", "passkey-local"] {
            let help = try ProcessResult.run(try ProgramPaths.built(program), arguments, standardInput: nil,
                                             environment: harness.environment, scratch: harness.home, timeout: 60)
            let text = help.standardOutput
            #expect(help.status == 0, "\(program) \(arguments)")
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first?.hasPrefix("OVERVIEW: ") == true && lines.dropFirst().first == "" && lines.dropFirst(2).first?.hasPrefix("USAGE: passkey") == true,
                    "\(program) \(arguments) starts with a one-line overview, then USAGE:\n\(text)")
            let usage = text.range(of: "USAGE:"), subcommands = text.range(of: "SUBCOMMANDS:")
            let exitStatuses = text.range(of: "EXIT STATUS:"), lastSubcommand = text.range(of: "  token ")
            #expect(usage != nil && subcommands != nil && exitStatuses != nil && lastSubcommand != nil, "\(text)")
            if let usage, let subcommands, let exitStatuses, let lastSubcommand {
                #expect(usage.lowerBound < subcommands.lowerBound)
                #expect(lastSubcommand.lowerBound < exitStatuses.lowerBound, "exit statuses after the subcommand list")
            }
            #expect(text.hasSuffix("  64  the command line is wrong\n"), "the exit statuses end the help")
            #expect(text.contains("  3   no usable device: no security key, card or reader, pcscd not\n      running, key unplugged\n"),
                    "the long line wraps under its own column")
            for line in lines { #expect(line.count <= 80, "\(program) \(arguments): a line past 80 columns: \(line)") }
        }
    }
}
