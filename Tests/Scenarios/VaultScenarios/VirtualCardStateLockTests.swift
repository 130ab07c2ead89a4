import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One `passkey-vcard` per state file: a card keeps its state in memory and
/// writes it whole after each change, so a second card on the same file
/// would undo the first's writes (keys, PIN counters). The second is refused
/// at start, naming the file; once the first has stopped, the file is free.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct VirtualCardStateLockTests {
    @Test func aSecondCardOnTheSameStateFileIsRefused() throws {
        let directory = try TemporaryDirectory.make(prefix: "vcard-lock")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let state = directory + "/card/vcard.json"
        let executable = try ProgramPaths.built("passkey-vcard")
        // No vpcd listens on this port: the card keeps trying to connect, holding its state file.
        let arguments = ["--host", "127.0.0.1", "--port", "9", "--state", state]
        let environment = ProcessInfo.processInfo.environment

        let first = try RunningProcess(executable, arguments, environment: environment, directory: directory, name: "first")
        try first.waitUntil("the first card serves its state") { first.standardError.contains("serving PIV card") }

        let second = try RunningProcess(executable, arguments, environment: environment, directory: directory, name: "second")
        let refused = second.waitForExit(timeout: 30)
        #expect(refused != nil && refused != 0, "\(second.standardError)")
        #expect(second.standardError.contains(state), "\(second.standardError)")
        #expect(second.standardError.contains("another passkey-vcard is using it"), "\(second.standardError)")

        first.stop()
        let third = try RunningProcess(executable, arguments, environment: environment, directory: directory, name: "third")
        try third.waitUntil("a card serves the state once the first has stopped") { third.standardError.contains("serving PIV card") }
        third.stop()
    }
}
