import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `passkey` is the light client: it talks to the agent and links no device
/// library; without an agent it hands the command line to `passkey-local`,
/// installed next to it (docs/ARCHITECTURE.md, "Programs").
@Suite(.ownThreads) struct LightClientTests {
    let harness: AgentHarness
    init() throws { harness = try AgentHarness() }

    /// Runs a program with the harness's environment (its agent, if started).
    private func run(_ program: String, _ arguments: [String], stdin: String? = nil) throws -> ProcessResult {
        try ProcessResult.run(program, arguments, standardInput: stdin, environment: harness.environment,
                              scratch: harness.home, timeout: 60)
    }

    /// A copy of the light `passkey` alone in a directory: no `passkey-local` beside it.
    private func lonePasskey() throws -> String {
        let directory = try TemporaryDirectory.make(prefix: "lone", in: harness.home)
        let copy = directory + "/passkey"
        // Copied by cp, not by this process: a file it held open for writing would
        // be inherited by other tests' children, and exec would fail with ETXTBSY.
        let copied = try ProcessResult.run("/bin/cp", [try ProgramPaths.built("passkey"), copy], standardInput: nil,
                                           environment: harness.environment, scratch: harness.home, timeout: 60)
        try #require(copied.status == 0, "cp: \(copied.standardError)")
        return copy
    }

    @Test("without an agent, passkey hands over to passkey-local: same output, same status")
    func handsOverWithoutAnAgent() throws {
        let light = try run(try ProgramPaths.built("passkey"), ["status"])
        let local = try run(try ProgramPaths.built("passkey-local"), ["status"])
        #expect(light.status == 0, "\(light.standardError)")
        #expect(light.standardOutput.contains("agent: not running (answered in-process)"))
        #expect(light.standardOutput == local.standardOutput)
        #expect(light.standardError == local.standardError)

        // An error the core reports comes back the same way, exit status included.
        let missing = try run(try ProgramPaths.built("passkey"), ["token", "get", "nobody", "--no-agent"])
        let missingLocal = try run(try ProgramPaths.built("passkey-local"), ["token", "get", "nobody", "--no-agent"])
        #expect(missing.status != 0)
        #expect(missing.status == missingLocal.status)
        #expect(missing.standardError == missingLocal.standardError)

        // The hand-over is observable: alone, the light binary says what is missing.
        let lone = try run(try lonePasskey(), ["status"])
        #expect(lone.status == 1)
        #expect(lone.standardError.contains("install passkey-local next to passkey"), "\(lone.standardError)")
    }

    @Test("with an agent, the light passkey needs nothing else: status and token get")
    func servesTheAgentAlone() throws {
        try harness.start()
        let passkey = try lonePasskey()
        #expect(try run(passkey, ["vault", "init", "--slot", "fido2", "--device", "virtual"]).status == 0)
        let document = #"{"access_token":"light-token","token_type":"Bearer","expires_in":86400,"#
            + #""issuer":"https://id.example.org","client_id":"cli","token_endpoint":"https://id.example.org/token"}"#
        let put = try run(passkey, ["token", "put", "work"], stdin: document)
        #expect(put.status == 0, "\(put.standardError)")
        let got = try run(passkey, ["token", "get", "work"])
        #expect(got.status == 0, "\(got.standardError)")
        #expect(got.standardOutput == "light-token\n")
        let status = try run(passkey, ["status"])
        #expect(status.standardOutput.hasPrefix("agent: running"), "\(status.standardOutput)")
        // --no-agent still means in-process, which the lone copy cannot do.
        #expect(try run(passkey, ["status", "--no-agent"]).standardError.contains("install passkey-local"))
    }

    /// The libraries a binary loads, from `ldd` (DT_NEEDED, transitively).
    private static func loadedLibraries(_ path: String, scratch: String) throws -> String {
        let result = try ProcessResult.run("/usr/bin/ldd", [path], standardInput: nil,
                                           environment: ProcessInfo.processInfo.environment, scratch: scratch, timeout: 30)
        try #require(result.status == 0, "ldd \(path): \(result.standardError)")
        return result.standardOutput
    }

    @Test("the light passkey links no libfido2, pcsc-lite, libcbor or libcrypto; passkey-local does")
    func lightLinkage() throws {
        let light = try Self.loadedLibraries(try ProgramPaths.built("passkey"), scratch: harness.home)
        for library in ["libfido2", "libpcsclite", "libcbor", "libcrypto"] {
            #expect(!light.contains(library), "passkey loads \(library):\n\(light)")
        }
        let local = try Self.loadedLibraries(try ProgramPaths.built("passkey-local"), scratch: harness.home)
        #expect(local.contains("libfido2"), "passkey-local runs the verbs in-process, with libfido2:\n\(local)")
    }
}
