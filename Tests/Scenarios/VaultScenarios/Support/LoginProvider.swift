import Foundation
import TestSupport

/// An OpenID provider the login tests sign in at, run as a real program on
/// loopback: `passkey-devserver` (its authorization server, issuer
/// `…/oauth2/default`) or `oidc-provider-mock` (PyPI, an independent peer
/// nobody here wrote). The person at the browser is `consent_browser.py`.
final class LoginProvider: @unchecked Sendable {
    let issuer: String
    let process: RunningProcess
    /// The form field that names the user on the consent page.
    let consentField: String
    /// The devserver's secret API key (its backend and admin calls).
    var apiSecret: String?
    private let directory: String

    /// `passkey-devserver` with `arguments` added (e.g. `--access-token-lifetime 5`).
    static func devserver(_ arguments: [String] = []) throws -> LoginProvider {
        let directory = try TemporaryDirectory.make(prefix: "login-provider")
        let server = try DevServerProgram(arguments: ["--listen", "127.0.0.1:0"] + arguments, directory: directory, name: "devserver")
        let line = try server.waitForStartupLine()
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let apiURL = object["apiUrl"] as? String, let url = URL(string: apiURL), let port = url.port else {
            throw TestFailure("the devserver's start-up line has no apiUrl: \(line)")
        }
        let provider = LoginProvider(issuer: "http://127.0.0.1:\(port)/oauth2/default", process: server.process,
                                     consentField: "user", directory: directory)
        provider.apiSecret = object["apiSecret"] as? String
        return provider
    }

    /// oidc-provider-mock 0.3.4 from the interop virtual environment (scripts/test installs it).
    static func oidcProviderMock(_ arguments: [String] = []) throws -> LoginProvider {
        let program = Interop.packageRoot + "/.build/interop-venv/bin/oidc-provider-mock"
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw TestFailure("oidc-provider-mock is not installed at \(program): run ./scripts/test, which installs it")
        }
        let directory = try TemporaryDirectory.make(prefix: "login-mock")
        let port = try freePort()
        let process = try RunningProcess(program, ["--host", "127.0.0.1", "--port", "\(port)"] + arguments,
                                         environment: ProcessInfo.processInfo.environment, directory: directory, name: "mock")
        let issuer = "http://127.0.0.1:\(port)"
        try process.waitUntil("oidc-provider-mock listens on port \(port)", timeout: 30) { accepts(port) }
        return LoginProvider(issuer: issuer, process: process, consentField: "sub", directory: directory)
    }

    private init(issuer: String, process: RunningProcess, consentField: String, directory: String) {
        self.issuer = issuer
        self.process = process
        self.consentField = consentField
        self.directory = directory
    }

    deinit {
        _ = process.stop(signal: SIGKILL)
        TemporaryDirectory.remove(directory)
    }

    /// The environment under which `passkey login` finds our scripted person
    /// as its browser (`$BROWSER`), consenting as `user` (or denying).
    func browserEnvironment(user: String = "alice", deny: Bool = false) -> [String: String] {
        ["BROWSER": "python3 \(Self.consentScript)", "CONSENT_USER": user, "CONSENT_FIELD": consentField,
         "CONSENT_ACTION": deny ? "deny" : "allow", "DISPLAY": ":99"]
    }

    static let consentScript = Interop.packageRoot + "/Tests/Interop/consent_browser.py"

    /// Runs the scripted person on `arguments` (`--print-redirect URL`, `--activate URL`).
    func person(_ arguments: [String], user: String = "alice", scratch: String) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["CONSENT_USER"] = user
        environment["CONSENT_FIELD"] = consentField
        return try ProcessResult.run("/usr/bin/env", ["python3", Self.consentScript] + arguments, standardInput: nil,
                                     environment: environment, scratch: scratch, timeout: 60)
    }

    /// The devserver origin (`http://127.0.0.1:PORT`).
    var origin: String { issuer.hasSuffix("/oauth2/default") ? String(issuer.dropLast("/oauth2/default".count)) : issuer }

    /// An admin call of the devserver's BI-like IdP (`ApiSecret` header), as
    /// an application's backend makes it: a JSON POST, its JSON answer.
    func adminPOST(_ path: String, _ body: String, scratch: String) throws -> [String: Any] {
        let script = """
        import json, sys, urllib.request
        request = urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), method="POST",
                                         headers={"Content-Type": "application/json", "ApiSecret": sys.argv[3]})
        print(urllib.request.urlopen(request, timeout=15).read().decode())
        """
        let result = try ProcessResult.run("/usr/bin/env", ["python3", "-c", script, origin + path, body, apiSecret ?? ""],
                                           standardInput: nil, environment: ProcessInfo.processInfo.environment,
                                           scratch: scratch, timeout: 60)
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] else {
            throw TestFailure("POST \(path) failed: \(result.standardError)")
        }
        return object
    }

    /// A plain GET that does not follow redirects: its `Location`.
    func location(of url: String, scratch: String) throws -> String {
        let script = """
        import sys, urllib.request
        class Stop(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs): return None
        try:
            urllib.request.build_opener(Stop).open(sys.argv[1], timeout=15)
        except urllib.error.HTTPError as error:
            print(error.headers.get("Location", ""))
        """
        let result = try ProcessResult.run("/usr/bin/env", ["python3", "-c", script, url], standardInput: nil,
                                           environment: ProcessInfo.processInfo.environment, scratch: scratch, timeout: 60)
        let location = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !location.isEmpty else { throw TestFailure("GET \(url) did not redirect: \(result.standardError)") }
        return location
    }

    private static func accepts(_ port: Int) -> Bool {
        guard let fd = LoopbackTCP.connect(port: UInt16(port)) else { return false }
        close(fd)
        return true
    }

    private static func freePort() throws -> Int { Int(try LoopbackTCP.freePort()) }
}

/// The payload of a JWT, decoded without any check (the tests look at claims).
func jwtClaims(_ jwt: String) -> [String: Any]? {
    let parts = jwt.split(separator: ".")
    guard parts.count == 3 else { return nil }
    var text = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    guard let data = Data(base64Encoded: text) else { return nil }
    return try? JSONSerialization.jsonObject(with: data) as? [String: Any]
}
