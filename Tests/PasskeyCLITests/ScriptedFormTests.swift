import AgentProtocol
import ArgumentParser
import Testing
import TestSupport
@testable import PasskeyCLI

/// `ScriptedForm` reads the plainest `status` and `token get` command lines
/// without ArgumentParser; its rule is that every form it accepts is one
/// ArgumentParser reads to the same values, and anything else is left to
/// ArgumentParser. Checked here in process against the real command tree
/// (`PasskeyCommand.parseAsRoot`); CLIScenarios/ScriptedFormTests runs the
/// programs and compares their output.
@Suite(.ownThreads) struct ScriptedFormTests {
    /// What ArgumentParser reads from `arguments`, in ScriptedForm's terms
    /// (nil when it reads another command, or refuses the line).
    static func parsed(_ arguments: [String]) -> ScriptedForm? {
        guard let command = try? PasskeyCommand.parseAsRoot(arguments) else { return nil }
        if let status = command as? StatusCommand {
            return .status(json: status.runOptions.json, noAgent: status.runOptions.noAgent)
        }
        if let get = command as? TokenGet, get.scope == nil, !get.idToken, get.format == .raw {
            return .tokenGet(account: get.account, minValid: get.minValid, json: get.runOptions.json, noAgent: get.runOptions.noAgent)
        }
        return nil
    }

    static let accepted: [([String], ScriptedForm)] = [
        (["status"], .status(json: false, noAgent: false)),
        (["status", "--json"], .status(json: true, noAgent: false)),
        (["status", "--no-agent"], .status(json: false, noAgent: true)),
        (["status", "--no-agent", "--json"], .status(json: true, noAgent: true)),
        (["token", "get", "work"], .tokenGet(account: "work", minValid: 60, json: false, noAgent: false)),
        (["token", "get", "work", "--json"], .tokenGet(account: "work", minValid: 60, json: true, noAgent: false)),
        (["token", "get", "--json", "work"], .tokenGet(account: "work", minValid: 60, json: true, noAgent: false)),
        (["token", "get", "work", "--no-agent"], .tokenGet(account: "work", minValid: 60, json: false, noAgent: true)),
        (["token", "get", "work", "--min-valid", "300"], .tokenGet(account: "work", minValid: 300, json: false, noAgent: false)),
        (["token", "get", "--min-valid", "300", "work"], .tokenGet(account: "work", minValid: 300, json: false, noAgent: false)),
        (["token", "get", "work", "--min-valid=0"], .tokenGet(account: "work", minValid: 0, json: false, noAgent: false)),
        (["token", "get", "--min-valid=007", "work"], .tokenGet(account: "work", minValid: 7, json: false, noAgent: false)),
        (["token", "get", "--no-agent", "--min-valid", "5", "--json", "w"], .tokenGet(account: "w", minValid: 5, json: true, noAgent: true)),
        (["token", "get", "a=b"], .tokenGet(account: "a=b", minValid: 60, json: false, noAgent: false)),
        (["token", "get", "läuft@example.org"], .tokenGet(account: "läuft@example.org", minValid: 60, json: false, noAgent: false)),
        (["token", "get", "status"], .tokenGet(account: "status", minValid: 60, json: false, noAgent: false)),
        (["token", "get", "9223372036854775807", "--min-valid", "9223372036854775807"],
         .tokenGet(account: "9223372036854775807", minValid: Int.max, json: false, noAgent: false)),
    ]

    @Test("each accepted form reads as ArgumentParser reads it, and token get's default --min-valid is the method's")
    func acceptedFormsReadAsArgumentParserReadsThem() {
        for (arguments, expected) in Self.accepted {
            #expect(ScriptedForm(arguments: arguments) == expected, "\(arguments)")
            #expect(Self.parsed(arguments) == expected, "ArgumentParser: \(arguments)")
        }
        #expect(TokenGetMethod.defaultMinValid == 60)
    }

    static let leftToArgumentParser: [[String]] = [
        [], ["token"], ["token", "list"], ["tokens", "get", "work"], ["statuses"], ["vault", "status"],
        // help and the end of options
        ["status", "--help"], ["status", "-h"], ["token", "get", "--help"], ["token", "get", "work", "-h"], ["help", "status"],
        ["token", "get", "--", "work"], ["status", "--"],
        // repeated, unknown and misplaced flags
        ["status", "--json", "--json"], ["status", "--no-agent", "--no-agent"], ["token", "get", "w", "--json", "--json"],
        ["status", "--min-valid", "5"], ["status", "--min-valid=5"], ["status", "extra"], ["status", "--verbose"],
        ["token", "get", "w", "--scope", "read"], ["token", "get", "w", "--format", "env"], ["token", "get", "w", "--id-token"],
        ["token", "get", "w", "--min-valid", "5", "--min-valid", "6"], ["token", "get", "w", "--min-valid=5", "--min-valid=6"],
        // accounts: none, two, empty, or one that looks like an option
        ["token", "get"], ["token", "get", "--json"], ["token", "get", "a", "b"], ["token", "get", ""], ["token", "get", "-w"],
        ["token", "get", "--work"],
        // --min-valid values: missing, signed, spaced, not decimal, too large for Int, empty
        ["token", "get", "w", "--min-valid"], ["token", "get", "w", "--min-valid", "-5"], ["token", "get", "w", "--min-valid", "+5"],
        ["token", "get", "w", "--min-valid=-5"], ["token", "get", "w", "--min-valid=+5"], ["token", "get", "w", "--min-valid", " 5"],
        ["token", "get", "w", "--min-valid", "5s"], ["token", "get", "w", "--min-valid", "0x10"], ["token", "get", "w", "--min-valid", "٣"],
        ["token", "get", "w", "--min-valid", "9223372036854775808"], ["token", "get", "w", "--min-valid="], ["token", "get", "w", "--min-valid", ""],
    ]

    @Test("every other form is left to ArgumentParser (help, --, repeated or unknown flags, values that start with - or carry a sign)")
    func otherFormsAreLeftToArgumentParser() {
        for arguments in Self.leftToArgumentParser {
            #expect(ScriptedForm(arguments: arguments) == nil, "\(arguments)")
        }
    }

    @Test("every command line of up to four words after the verb, from a vocabulary of its flags, values and traps: whatever ScriptedForm reads, ArgumentParser reads the same")
    func exhaustiveAgreement() {
        let words = ["work", "w2", "--json", "--no-agent", "--min-valid", "30", "-5", "+5", "--min-valid=7", "--min-valid=", "--", "--help", "-h", ""]
        var lines: [[String]] = [[]]
        var longest: [[String]] = [[]]
        for _ in 0..<4 {
            longest = longest.flatMap { line in words.map { line + [$0] } }
            lines += longest
        }
        var accepted = 0
        for verb in [["status"], ["token", "get"]] {
            for rest in lines {
                let arguments = verb + rest
                guard let form = ScriptedForm(arguments: arguments) else { continue }
                accepted += 1
                #expect(Self.parsed(arguments) == form, "\(arguments)")
            }
        }
        #expect(accepted > 100, "the vocabulary reaches the accepted forms: \(accepted)")
    }
}
