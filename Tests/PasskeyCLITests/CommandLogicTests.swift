import AgentProtocol
import ArgumentParser
import Testing
import TestSupport
@testable import PasskeyCLI

/// The CLI's own small rules, in process: option values, `$BROWSER` words,
/// the PATH search of `passkey exec`, and the credential helpers' input.
@Suite(.ownThreads) struct CommandLogicTests {
    @Test("passkey forward --ttl: 90, 90s, 15m, 8h, 1d; exact, positive, at most a week")
    func forwardTTL() throws {
        let good: [String: Int] = ["90": 90, "90s": 90, "15m": 900, "8h": 28_800, "1d": 86_400, "7d": 604_800, "604800": 604_800,
                                   "10080m": 604_800, "0001s": 1]
        for (text, seconds) in good { #expect(try ForwardCommand.seconds(text) == seconds, "\(text)") }
        for text in ["", "0", "0s", "s", "8d", "604801", "-1", "+1", "1.5h", "1e3", "1w", "1 h", "1H", "٣s", "99999999d", "1hh", "9223372036854775807s"] {
            #expect(throws: ValidationError.self, "\(text)") { try ForwardCommand.seconds(text) }
        }
    }

    @Test("passkey exec --variable: a POSIX shell name of at most 255 bytes")
    func variableNames() {
        for name in ["A", "_", "TOKEN", "my_token_2", "_1", String(repeating: "A", count: 255)] {
            #expect(ExecCommand.isVariableName(name), "\(name)")
        }
        for name in ["", "1A", "A-B", "A B", "A=B", "Ä", "A.B", "$A", String(repeating: "A", count: 256)] {
            #expect(!ExecCommand.isVariableName(name), "\(name)")
        }
    }

    @Test("passkey exec looks a program up as execvp does: a name with a slash as it is, else each PATH entry, empty meaning here")
    func programCandidates() {
        #expect(ProgramReplacement.candidates(for: "./tool", path: "/bin") == ["./tool"])
        #expect(ProgramReplacement.candidates(for: "/usr/bin/env", path: "/bin") == ["/usr/bin/env"])
        #expect(ProgramReplacement.candidates(for: "kubectl", path: "/a:/b") == ["/a/kubectl", "/b/kubectl"])
        #expect(ProgramReplacement.candidates(for: "kubectl", path: "/a::/b:") == ["/a/kubectl", "kubectl", "/b/kubectl", "kubectl"])
        #expect(ProgramReplacement.candidates(for: "kubectl", path: nil) == ["/usr/local/bin/kubectl", "/usr/bin/kubectl", "/bin/kubectl"])
    }

    @Test("$BROWSER words: %s replaced (inside a word too), %% made %, a lone % kept; without %s the address comes last; empty is none")
    func browserWords() {
        let address = "file:///run/user/1000/launch.html"
        #expect(BrowserLauncher.words("firefox", address: address) == ["firefox", address])
        #expect(BrowserLauncher.words("chromium --app=%s --new-window", address: address) == ["chromium", "--app=" + address, "--new-window"])
        #expect(BrowserLauncher.words("open %s %s", address: address) == ["open", address, address])
        #expect(BrowserLauncher.words("b --x=100%% %s", address: address) == ["b", "--x=100%", address])
        #expect(BrowserLauncher.words("b 50% %q", address: address) == ["b", "50%", "%q", address])
        #expect(BrowserLauncher.words("b %", address: address) == ["b", "%", address])
        #expect(BrowserLauncher.words("", address: address) == nil)
        #expect(BrowserLauncher.words("   ", address: address) == nil)
    }

    @Test("the launch page's file URL is percent-encoded, so a space or # in a directory name cannot cut it short")
    func fileURL() {
        #expect(BrowserLauncher.fileURL("/run/user/1000/passkey-agent/launch-1.html") == "file:///run/user/1000/passkey-agent/launch-1.html")
        #expect(BrowserLauncher.fileURL("/home/a b/#x?y%/é") == "file:///home/a%20b/%23x%3Fy%25/%C3%A9")
    }

    @Test("a key's AAGUID is shown 8-4-4-4-12; anything but 32 digits as it came")
    func aaguid() {
        #expect(KeyInfoCommand.uuid("6f4d2a1e9c3b4e578a602b7d1c5e9f03") == "6f4d2a1e-9c3b-4e57-8a60-2b7d1c5e9f03")
        #expect(KeyInfoCommand.uuid("6f4d") == "6f4d")
        #expect(KeyInfoCommand.uuid("") == "")
    }

    @Test("git's credential description: key=value lines up to a blank one, a later value wins, a line without = or bad bytes is invalid_input")
    func gitDescription() throws {
        let values = try GitCredentialHelper.parse(Array("protocol=https\nhost=git.example.org:8443\npath=a/b=c\nhost=git.example.org\n\nignored\n".utf8))
        #expect(values == ["protocol": "https", "host": "git.example.org", "path": "a/b=c"])
        #expect(try GitCredentialHelper.parse([]) == [:])
        #expect(try GitCredentialHelper.parse(Array("url=https://x\n".utf8)) == ["url": "https://x"])
        for bad in [Array("protocol\n".utf8), [0xFF, 0x3D], Array("a=\0\n".utf8), [UInt8](repeating: 0x61, count: (1 << 20) + 1)] {
            #expect(throws: AgentError.self) { try GitCredentialHelper.parse(bad) }
        }
    }

    @Test("the server git means: protocol, host and path, or url; a host with / or @ is none; a token goes only to https or http on this machine")
    func gitServer() throws {
        let server = try #require(GitCredentialHelper.server(["protocol": "https", "host": "Git.Example.org:8443", "path": "team/repo.git"]))
        #expect(server.scheme == "https" && server.host == "git.example.org" && server.port == 8443 && server.path == ["team", "repo.git"])
        #expect(GitCredentialHelper.server(["url": "https://git.example.org/x"])?.host == "git.example.org")
        #expect(GitCredentialHelper.server(["protocol": "https", "host": "a/b"]) == nil)
        #expect(GitCredentialHelper.server(["protocol": "https", "host": "user@host"]) == nil)
        #expect(GitCredentialHelper.server(["host": "git.example.org"]) == nil)

        func may(_ url: String) -> Bool { CredentialRoutes.Server(url).map(GitCredentialHelper.mayReceiveToken) ?? false }
        #expect(may("https://git.example.org/"))
        #expect(may("http://127.0.0.1:3000/") && may("http://localhost/") && may("http://[::1]:8080/"))
        #expect(!may("http://git.example.org/") && !may("ftp://git.example.org/") && !may("http://127.0.0.1.example.org/"))
    }

    @Test("docker's server URL on stdin is trimmed as Go's TrimSpace does; empty or not UTF-8 is invalid_input; a bare host is https")
    func dockerServer() throws {
        #expect(try DockerCredentialHelper.serverURL(Array(" \t registry.example.com:5000 \r\n".utf8)) == "registry.example.com:5000")
        for bad in [[], Array(" \n".utf8), [0xC3]] as [[UInt8]] {
            #expect(throws: AgentError.self) { try DockerCredentialHelper.serverURL(bad) }
        }
        let bare = try #require(DockerCredentialHelper.server("registry.example.com:5000"))
        #expect(bare.scheme == "https" && bare.host == "registry.example.com" && bare.port == 5000)
        #expect(DockerCredentialHelper.server("https://index.docker.io/v1/")?.path == ["v1"])
    }
}
