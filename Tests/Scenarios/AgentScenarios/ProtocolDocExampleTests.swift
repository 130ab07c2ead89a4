import Foundation
import Testing
import TestSupport

/// docs/PROTOCOL.md is the contract: the requests it shows are sent, as the
/// page writes them, to a real agent, which must answer each with a result.
/// A client written from the page then works; a change to the page or to the
/// params' decoding that breaks one of them fails here.
@Suite(.ownThreads) struct ProtocolDocExampleTests {
    /// Every request line (an object with `id` and `method`) in the page's
    /// ```json blocks, in the page's order.
    static func documentedRequests() throws -> [(line: String, method: String)] {
        let page = try String(contentsOfFile: Interop.packageRoot + "/docs/PROTOCOL.md", encoding: .utf8)
        var requests: [(line: String, method: String)] = []
        var inJSONBlock = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                inJSONBlock = !inJSONBlock && trimmed == "```json"
                continue
            }
            guard inJSONBlock,
                  let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any],
                  object["id"] != nil, let method = object["method"] as? String else { continue }
            requests.append((trimmed, method))
        }
        return requests
    }

    @Test("the page shows the device choice both ways, for each kind of device-facing method")
    func thePageShowsBothForms() throws {
        let requests = try Self.documentedRequests()
        let methods = Set(requests.map(\.method))
        for method in ["webauthn.create", "webauthn.get", "pin.set", "pin.change", "devices.list"] {
            #expect(methods.contains(method), "docs/PROTOCOL.md shows a \(method) request")
        }
        #expect(requests.contains { $0.line.contains(#""device":"virtual""#) && $0.method.hasPrefix("webauthn.") },
                "a ceremony with `device` as a string")
        #expect(requests.contains { $0.line.contains(#""device":{"device":"virtual"}"#) }, "`device` as an object")
    }

    @Test("each request the page shows is accepted and answered with a result")
    func documentedRequestsAreAccepted() throws {
        let harness = try AgentHarness()
        try harness.start()
        let client = try harness.connect()
        for request in try Self.documentedRequests() {
            try client.send(request.line + "\n")
            var answer: [String: Any] = [:]
            repeat { answer = try client.readJSON(timeout: 30) } while answer["method"] != nil
            #expect(answer["result"] != nil, "\(request.method) from docs/PROTOCOL.md: \(answer)")
        }
    }

    @Test("a device that is neither a string nor an object is invalid_params naming `device`")
    func aDeviceOfAnotherTypeIsNamed() throws {
        let harness = try AgentHarness()
        try harness.start()
        let answer = try harness.connect().call(1, "pin.set", params: #"{"device":5,"newPin":"246810"}"#)
        #expect(answer.errorKind == "invalid_params")
        let message = (answer["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("`device`") && message.contains("virtual"), "\(message)")
    }
}
