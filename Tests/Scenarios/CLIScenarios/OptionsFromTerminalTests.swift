import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `passkey webauthn create` (and `get`) read their options from standard
/// input. On a terminal they say so first — what they wait for and how to end
/// it — instead of waiting silently; from a pipe or file they say nothing.
@Suite(.ownThreads) struct OptionsFromTerminalTests {
    let harness: AgentHarness
    init() throws { harness = try AgentHarness() }

    /// A pseudo-terminal: the test holds its controller end, and the command
    /// gets the terminal end as its standard input and standard error, as in
    /// a shell where the person forgot `< options.json`.
    final class PseudoTerminal {
        let controller: Int32
        let terminalPath: String
        private(set) var shown = ""

        /// posix_openpt, unlockpt and ptsname, which Swift's Glibc module does
        /// not declare (they need _XOPEN_SOURCE): /dev/ptmx, then the ioctls
        /// TIOCSPTLCK (unlock) and TIOCGPTN (its number under /dev/pts);
        /// grantpt does nothing on devpts.
        init() throws {
            controller = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard controller >= 0 else { throw HarnessError("no pseudo-terminal: /dev/ptmx") }
            var unlocked: Int32 = 0
            var number: UInt32 = 0
            let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
            guard ioctl(controller, TIOCSPTLCK, &unlocked) == 0, ioctl(controller, TIOCGPTN, &number) == 0 else {
                close(controller)
                throw HarnessError("no pseudo-terminal: TIOCSPTLCK/TIOCGPTN")
            }
            terminalPath = "/dev/pts/\(number)"
        }

        deinit { close(controller) }

        /// Reads what the terminal shows until `text` appears; false after `timeout`.
        func waitFor(_ text: String, timeout: Duration = .seconds(20)) -> Bool {
            let deadline = ContinuousClock.now + timeout
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !shown.contains(text) {
                guard ContinuousClock.now < deadline else { return false }
                var poller = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let n = chunk.withUnsafeMutableBytes { read(controller, $0.baseAddress, $0.count) }
                if n <= 0 { return false }
                shown += String(decoding: chunk[0..<n], as: UTF8.self)
            }
            return true
        }

        /// Types `text` at the terminal.
        func type(_ text: String) {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { write(controller, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                offset += n
            }
        }
    }

    @Test("on a terminal, create says what it waits for, then reads the pasted options up to Ctrl-D")
    func onATerminalItSaysWhatItWaitsFor() throws {
        let terminal = try PseudoTerminal()
        let output = harness.home + "/registration.json"
        let command = try ChildProcess.spawn(
            try ProgramPaths.built("passkey"),
            ["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
            environment: harness.environment, standardInput: terminal.terminalPath, standardOutput: output,
            standardError: terminal.terminalPath)
        defer { if command.reap() == nil { command.terminate(signal: SIGKILL) } }

        #expect(terminal.waitFor("Ctrl-D"), "a line on the terminal before it waits: \(terminal.shown)")
        #expect(terminal.shown.contains("PublicKeyCredentialCreationOptionsJSON"))
        #expect(terminal.shown.contains("--options FILE"))
        #expect(command.reap() == nil, "still waiting for the options")

        // A line, then Ctrl-D at the start of the next: the end of input (the options fit the terminal's 4 KiB line).
        terminal.type(WebAuthnFixtures.creationOptions() + "\n\u{04}")
        let status = command.waitForExit(within: .seconds(60))
        #expect(status == 0, "exit status; the terminal showed: \(terminal.shown)")
        let registration = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any]
        #expect((registration?["response"] as? [String: Any])?["attestationObject"] is String)
    }

    @Test("from a pipe, create and get say nothing about standard input")
    func fromAPipeItSaysNothing() throws {
        let created = try harness.passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
                                          standardInput: WebAuthnFixtures.creationOptions())
        #expect(created.status == 0, "\(created.standardError)")
        #expect(!created.standardError.contains("Ctrl-D"), "\(created.standardError)")
        let got = try harness.passkey(["webauthn", "get", "--device", "virtual", "--origin", "https://example.org"],
                                      standardInput: WebAuthnFixtures.requestOptions())
        #expect(got.status == 0, "\(got.standardError)")
        #expect(!got.standardError.contains("Ctrl-D"), "\(got.standardError)")
    }
}
