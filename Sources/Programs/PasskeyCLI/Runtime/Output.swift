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
            jsonError(kind: error.kind.rawValue, message: error.message, details: error.details)
        } else {
            var text = "passkey: \(error.message)\n"
            if error.kind == .pinInvalid, case .number(let left)? = error.details["triesLeft"], let tries = Int(exactly: left),
               !error.message.contains("left") {
                text = "passkey: \(error.message) (\(tries) tries left)\n"
            }
            StandardError.write(text)
        }
        return ExitCode(ExitStatus.of(error))
    }

    /// `{"error":{"kind":…,"message":…}}` (plus the error's details, such as
    /// `triesLeft`) on stdout: every failure under `--json` has this shape.
    package static func jsonError(kind: String, message: String, details: [String: JSONValue] = [:]) {
        var object = details
        object["kind"] = .string(kind)
        object["message"] = .string(message)
        Output.json(["error": JSONValue.object(object)])
    }
}
