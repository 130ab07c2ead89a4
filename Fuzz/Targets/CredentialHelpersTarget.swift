import PasskeyCLI
import Settings

extension FuzzTarget {
    /// What git, docker and kubectl hand `passkey`'s token consumers: git's
    /// `key=value` credential description, docker's server URL, kubectl's
    /// KUBERNETES_EXEC_INFO, and a server matched against `[credential.NAME]`
    /// tables. Beyond not crashing: a server is never read through a dot
    /// segment or with a port outside 1–65535; a token goes over plain http
    /// only to this machine (judged by `LoopbackOracle`, Foundation's `URL`);
    /// a table matches only its own host; an accepted ExecCredential call
    /// names a version passkey answers.
    static let credentialHelpers = FuzzTarget(
        name: "credential-helpers",
        summary: "text as git's credential description, docker's server URL, KUBERNETES_EXEC_INFO, and a server for [credential.NAME]",
        maximumLength: 4096,
        seeds: {
            [
                Seed("git-get", text: "protocol=https\nhost=git.example.org:8443\npath=team/app.git\nusername=alice\nwwwauth[]=Basic realm=\"x\"\n\n"),
                Seed("git-url-and-dots", text: "url=http://127.0.0.1:8080/team/%2e%2e/other\n\n"),
                Seed("docker-server", text: "https://index.docker.io/v1/"),
                Seed("exec-info", text: #"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}}"#),
                Seed("ipv6-host", text: "http://[::1]:5000/v2/"),
            ]
        },
        run: { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            if let values = try? GitCredentialHelper.parse(bytes), let server = GitCredentialHelper.server(values) {
                try FuzzTarget.checkCredentialServer(server)
                if GitCredentialHelper.mayReceiveToken(server), server.scheme == "http" {
                    let url = "http://\(server.host)\(server.port.map { ":\($0)" } ?? "")/"
                    try expect(LoopbackOracle.connectsToThisMachineOnly(url), "the git helper would send a token in clear to \(url.debugDescription)")
                }
            }
            if let url = try? DockerCredentialHelper.serverURL(bytes), let server = DockerCredentialHelper.server(url) { try FuzzTarget.checkCredentialServer(server) }
            if let call = try? ExecCredential.call(environment: ["KUBERNETES_EXEC_INFO": text]) {
                try expect(ExecCredential.apiVersions.contains(call.apiVersion), "an ExecCredential call in \(call.apiVersion.debugDescription) was accepted")
            }
            // The text as a table's url and as its host, matched against fixed servers.
            let routes = CredentialRoutes([
                Settings.Credential(name: "u", url: text, host: nil, account: "a", username: nil),
                Settings.Credential(name: "h", url: nil, host: text, account: "a", username: nil),
            ])
            for route in routes.routes { try FuzzTarget.checkCredentialServer(route.server) }
            for probe in ["https://git.example.org/team/app.git", "http://127.0.0.1:8080/x", "registry.example.com:5000"] {
                guard let server = CredentialRoutes.Server(probe, defaultScheme: "https"), let route = routes.route(for: server) else { continue }
                try expect(route.server.host == server.host, "\(text.debugDescription) matched the host \(server.host)")
            }
        })

    /// What every parsed server must be.
    static func checkCredentialServer(_ server: CredentialRoutes.Server) throws {
        try expect(!server.host.isEmpty && server.host == server.host.lowercased(), "a server's host is empty or not lowercased")
        try expect(server.port.map { (1...65_535).contains($0) } ?? true, "a server's port \(server.port ?? 0) is out of range")
        try expect(!server.path.contains { [".", ".."].contains($0.lowercased().replacing("%2e", with: ".")) },
                   "a server's path has a dot segment")
    }
}
