import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Request lines a hostile local process may send: none may stop the agent.
@Suite(.ownThreads) struct HostileLineTests {
    /// Ids that are numbers but no Int64: each is answered `invalid_request`
    /// with id null, and the agent keeps serving (an `Int64(n)` trap ended it).
    @Test func numericIdsOutsideInt64AreAnsweredNotFatal() throws {
        let harness = try AgentHarness()
        let agent = try harness.start()
        let client = try harness.connect()
        let ids = ["1e300", "-1e300", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
                   "1.5", "1e19", "-1e19", "1.7976931348623157e308"]
        for id in ids {
            // Once as a well-formed request, once with a bad jsonrpc (the other parse path).
            for version in ["2.0", "1.0"] {
                try client.send("{\"jsonrpc\":\"\(version)\",\"id\":\(id),\"method\":\"agent.status\"}\n")
                let answer = try client.readJSON()
                #expect(answer.errorKind == "invalid_request", "id \(id): \(answer)")
                #expect(answer["id"] is NSNull, "id \(id) is not an Int64, so the answer names none: \(answer)")
            }
        }
        #expect(agent.poll() == nil, "the agent is still running")
        #expect(try client.call(7, "agent.status").result != nil)
        // The Int64 extremes themselves are ids like any other.
        for id in ["9223372036854775807", "-9223372036854775808"] {
            try client.send("{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"agent.status\"}\n")
            let answer = try client.readJSON()
            #expect(answer.result != nil, "id \(id): \(answer)")
            #expect((answer["id"] as? NSNumber)?.stringValue == id)
        }
    }

    /// `params` must be an object; `null` means the same as leaving it out.
    @Test func paramsThatAreNotAnObjectAreInvalidRequests() throws {
        let harness = try AgentHarness()
        try harness.start()
        let client = try harness.connect()
        for (n, params) in ["[1,2]", "[]", "42", "\"x\"", "true"].enumerated() {
            let answer = try client.call(n + 1, "agent.status", params: params)
            #expect(answer.errorKind == "invalid_request", "params \(params): \(answer)")
            #expect(answer["id"] as? Int == n + 1)
        }
        #expect(try client.call(10, "agent.status", params: "null").result != nil)
        #expect(try client.call(11, "agent.status", params: "{}").result != nil)
    }

    /// Deep nesting is refused before it is decoded (decoding costs time
    /// quadratic in the depth, on the thread that serves other clients);
    /// ordinary nesting inside strings does not count.
    @Test func deepNestingIsRefusedBeforeDecoding() throws {
        let harness = try AgentHarness()
        try harness.start()
        let client = try harness.connect()
        for depth in [65, 500, 100_000] {
            let params = "{\"a\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
            let answer = try client.call(depth, "agent.status", params: params)
            #expect(answer.errorKind == "invalid_request", "depth \(depth): \(answer.errorKind ?? "a result")")
        }
        let brackets = String(repeating: "[{", count: 1_000)
        #expect(try client.call(1, "agent.status", params: "{\"note\":\"\(brackets)\\\"\"}").result != nil)
        #expect(try client.call(2, "agent.status", params: "{\"a\":" + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}").result != nil)
    }

    /// A line of very many small values is refused before it is decoded (a
    /// MiB of `{}`s costs a second of the thread that serves other clients);
    /// a request within the limit is served.
    @Test func tooManyValuesAreRefusedBeforeDecoding() throws {
        let harness = try AgentHarness()
        try harness.start()
        let client = try harness.connect()
        for (n, element) in ["{}", "0", "[]", "\"\""].enumerated() {
            let many = "{\"a\":[" + Array(repeating: element, count: 10_001).joined(separator: ",") + "]}"
            let answer = try client.call(n + 1, "agent.status", params: many)
            #expect(answer.errorKind == "invalid_request", "10,001 × \(element): \(answer.errorKind ?? "a result")")
        }
        let fewer = "{\"a\":[" + Array(repeating: "0", count: 9_000).joined(separator: ",") + "]}"
        #expect(try client.call(9, "agent.status", params: fewer).result != nil)
        let commasInAString = "{\"a\":\"" + String(repeating: ",", count: 50_000) + "\"}"
        #expect(try client.call(10, "agent.status", params: commasInAString).result != nil)
    }

    /// A `\r\n` line end is one line; a line of exactly the limit is served.
    @Test func crlfLinesAndEmptyLinesAreServed() throws {
        let harness = try AgentHarness()
        try harness.start()
        let client = try harness.connect()
        try client.send("\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"agent.status\"}\r\n")
        let answer = try client.readJSON()
        #expect(answer["id"] as? Int == 1)
        #expect(answer.result != nil)
    }
}
