@testable import DevServer
import DevServerBase
import DevServerTestSupport
import Foundation
import Testing
import TestSupport
import URLPolicy

/// The devserver has no TLS and prints its secret, so it listens only on
/// addresses that can only mean this machine. A host that merely starts with
/// "127." is a DNS name anyone can point anywhere; it must be refused as a
/// configuration error before any name is resolved or socket opened.
@Suite(.ownThreads) struct LoopbackListenTests {
    @Test(arguments: ["127.evil.example", "127.0.0.1.evil.example", "127.", "127.0.0.1.", "127.1", "0x7f.0.0.1",
                      "2130706433", "0177.0.0.1", "127.0.0.256", "127.0.0.01", "localhost.", "localhost.evil.example",
                      "::ffff:127.0.0.1", "::2", "::1%lo", "[::1]", "1.2.3.4", "0.0.0.0", "::", ""])
    func nonLoopbackListenHostsAreRefused(host: String) async throws {
        let error = await #expect(throws: DevServerError.self) {
            _ = try await DevServer.start(DevServerConfiguration(host: host))
        }
        guard case .invalidConfiguration(let what, let reason)? = error else {
            Issue.record("\(host.debugDescription): expected a configuration error, got \(String(describing: error))")
            return
        }
        #expect(what.contains("listen address"))
        #expect(reason.contains("only on loopback"))
    }

    /// Every spelling that can only mean this machine is taken: the IPv4
    /// ones start a real server; IPv6 is checked without binding (a machine
    /// may lack ::1), as `passkey-devserver --listen [::1]:0` hands over `::1`.
    @Test func loopbackListenHostsAreAccepted() async throws {
        #expect(LoopbackHost.isLoopbackAddress("::1"))
        #expect(LoopbackHost.isLoopbackAddress("0:0:0:0:0:0:0:1"))
        #expect(LoopbackHost.isLoopbackAddress("LOCALHOST"))
        #expect(!LoopbackHost.isLoopbackAddress("::ffff:127.0.0.1"))
        #expect(!LoopbackHost.isLoopbackAddress("127.0.0.1:80"))
        for host in ["127.0.0.1", "127.0.0.2", "127.255.255.254", "localhost"] {
            let server = try await DevServer.start(DevServerConfiguration(host: host))
            #expect(server.port > 0)
            await server.shutdown()
        }
    }
}
