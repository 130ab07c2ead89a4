import AgentProtocol
import ArgumentParser
import FoundationEssentials
import StandardError

#if canImport(Glibc)
import Glibc
#endif

/// Printing results and failures the same way in every verb.
package enum Output {
    /// Pretty, key-sorted JSON on stdout.
    package static func json<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return }
        print(String(decoding: data, as: UTF8.self))
    }

    package static func line(_ text: String) { print(text) }

    /// One line on stderr (or `{"error":{…}}` on stdout with `--json`),
    /// then the exit status for the error's kind.
    package static func fail(_ error: AgentError, json: Bool) -> ExitCode {
        if json {
            var object = error.details
            object["kind"] = .string(error.kind.rawValue)
            object["message"] = .string(error.message)
            Output.json(["error": JSONValue.object(object)])
        } else {
            var text = "passkey: \(error.message)\n"
            if error.kind == .pinInvalid, case .number(let left)? = error.details["triesLeft"], let tries = Int(exactly: left),
               !error.message.contains("left") {
                text = "passkey: \(error.message) (\(tries) tries left)\n"
            }
            StandardError.write(text)
        }
        return ExitCode(error.kind.exitStatus)
    }
}
