import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// A pinentry that plays the person at the desktop in the tests: it speaks
/// the Assuan protocol pinentry speaks (greeting, OK to each SET… command),
/// answers CONFIRM with yes or no as the test chose, refuses GETPIN (tests
/// give PINs with --pin-stdin), and writes every line it received to a log,
/// so a test can read what the person was shown. Handed to the agent and
/// `passkey` as `PASSKEY_PINENTRY`.
public struct ScriptedPinentry: Sendable {
    public enum Answer: String, Sendable {
        case allow, deny
    }

    /// The program (a shell script, 0700).
    public let program: String
    /// Every line the program received, one per line, Assuan-escaped (`%0A` for a newline).
    public let log: String

    /// Writes the script into `directory`.
    public init(in directory: String, answer: Answer) throws(HarnessError) {
        program = directory + "/scripted-pinentry"
        log = directory + "/scripted-pinentry.log"
        try self.answer(answer)
    }

    /// From now on, answers every CONFIRM with `answer`; with `gate` (a
    /// FIFO, `makeGate`), only once the test opens it (`openGate`): the
    /// person takes as long as the test needs, mid-operation.
    public func answer(_ answer: Answer, gate: String? = nil) throws(HarnessError) {
        let reply = answer == .allow ? "echo OK" : "echo 'ERR 83886194 Not confirmed <Pinentry>'"
        let confirm = gate.map { "read -r _ < '\($0)'; \(reply)" } ?? reply
        let script = """
        #!/bin/sh
        echo "OK Pleased to meet you"
        while IFS= read -r line; do
          printf '%s\\n' "$line" >> '\(log)'
          case "$line" in
            CONFIRM*) \(confirm) ;;
            GETPIN*) echo 'ERR 83886179 Operation cancelled <Pinentry>' ;;
            BYE*) echo OK; exit 0 ;;
            *) echo OK ;;
          esac
        done

        """
        try ExecutableScript.write(script, to: program)
    }

    /// What the scripted person was asked to confirm (each CONFIRM's SETDESC, unescaped).
    public var confirmations: [String] {
        var shown: [String] = []
        var description = ""
        for line in TextFile.read(log).split(separator: "\n") {
            if line.hasPrefix("SETDESC ") { description = String(line.dropFirst("SETDESC ".count)) }
            if line.hasPrefix("CONFIRM") {
                shown.append(description.replacing("%0A", with: "\n").replacing("%0D", with: "\r").replacing("%25", with: "%"))
            }
        }
        return shown
    }

    /// A FIFO at `path` for `answer(_:gate:)`.
    public static func makeGate(at path: String) throws(HarnessError) {
        guard mkfifo(path, 0o600) == 0 else { throw .system("mkfifo \(path)") }
    }

    /// Lets the CONFIRM waiting on `gate` be answered. The pinentry already
    /// reads it (its log shows the CONFIRM), so the open does not wait.
    public static func openGate(_ gate: String) throws(HarnessError) {
        let fd = open(gate, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .system("open \(gate)") }
        defer { close(fd) }
        guard write(fd, "\n", 1) == 1 else { throw .system("write \(gate)") }
    }

    /// `PASSKEY_PINENTRY` for an environment.
    public var environment: [String: String] { ["PASSKEY_PINENTRY": program] }
}
