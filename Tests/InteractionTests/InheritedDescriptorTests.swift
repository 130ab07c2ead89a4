import Prompts
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A child we start gets stdin, stdout and stderr, nothing else. NIO accepts
/// connections without close-on-exec, so before this a pinentry (or a test's
/// agent) spawned while another thread had just accepted one kept that
/// connection open after its owner closed it: the peer never saw the close
/// (issue 30's listener-flood flake), and a pinentry held the agent's side of
/// a socket PINs travel over.
@Suite(.ownThreads) struct InheritedDescriptorTests {
    /// A socket pair without close-on-exec, as NIO's accepted sockets are.
    static func inheritablePair() throws -> [Int32] {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        return pair
    }

    /// A shell that prints which of `descriptors` it has open, then "done".
    static func probe(_ descriptors: [Int32]) -> [String] {
        ["-c", "for fd in \"$@\"; do [ -e /proc/$$/fd/$fd ] && echo \"open $fd\"; done; echo done", "sh"]
            + descriptors.map(String.init)
    }

    @Test func aPinentryInheritsNoDescriptorOfTheAgent() throws {
        let pair = try Self.inheritablePair()
        defer { pair.forEach { close($0) } }
        let child = try #require(PipedProcess(program: "/bin/sh", arguments: Self.probe(pair)))
        var lines: [String] = []
        while let line = child.readLine() { lines.append(line) }
        child.finish()
        #expect(lines == ["done"], "\(lines)")
    }

    @Test func aChildOfTheHarnessInheritsNoDescriptorOfTheTestProcess() throws {
        let pair = try Self.inheritablePair()
        defer { pair.forEach { close($0) } }
        let scratch = try TemporaryDirectory.make(prefix: "inherit")
        defer { TemporaryDirectory.remove(scratch) }
        let result = try ProcessResult.run("/bin/sh", Self.probe(pair), standardInput: nil,
                                           environment: ["PATH": "/usr/bin:/bin"], scratch: scratch, timeout: 30)
        #expect(result.standardOutput == "done\n", "\(result.standardOutput)")
    }
}
