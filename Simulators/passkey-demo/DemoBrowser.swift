import AgentProtocol
import FoundationEssentials
import HTTPTransport

/// The person at the browser, played over loopback HTTP as a browser would
/// (Tests/Interop/consent_browser.py does the same for the tests): open the
/// sign-in page, submit its form, follow the redirects — to the agent's
/// loopback callback, or out of the web to an app's URL scheme.
struct DemoBrowser {
    let transport: HTTPTransport

    /// Opens the authorization page, signs in as `user` and allows; the address the provider redirects to.
    func consent(_ url: String, user: String) async throws(AgentError) -> String {
        let page = try await send("GET", url)
        guard page.status == 200 else { throw AgentError(.serverError, "the sign-in page answered HTTP \(page.status)") }
        let answer: HTTPTransport.Response
        do {
            answer = try await transport.postForm(url, [("user", user), ("action", "allow")])
        } catch {
            throw AgentError(.networkError, "\(error)")
        }
        guard [302, 303].contains(answer.status), let location = answer.header("Location") else {
            throw AgentError(.serverError, "the sign-in form answered HTTP \(answer.status) without a redirect")
        }
        return location
    }

    /// GETs `url`; its status (a callback page).
    func visit(_ url: String) async throws(AgentError) -> Int { try await send("GET", url).status }

    /// Follows redirects from `url` until one leaves the web (an app's URL scheme): that address.
    func followToApp(_ url: String) async throws(AgentError) -> String {
        var current = url
        for _ in 0..<10 {
            let response = try await send("GET", current)
            guard [301, 302, 303, 307].contains(response.status), let location = response.header("Location") else {
                throw AgentError(.serverError, "\(Self.withoutQuery(current)) answered HTTP \(response.status) without a redirect")
            }
            let next = Self.resolve(location, against: current)
            if !next.hasPrefix("http://") && !next.hasPrefix("https://") { return next }
            current = next
        }
        throw AgentError(.serverError, "too many redirects from \(Self.withoutQuery(url))")
    }

    /// A JSON POST with the devserver's secret (`ApiSecret`), as an application's backend calls the BI-like admin API.
    func adminPOST(_ url: String, json: String, secret: String) async throws(AgentError) -> [UInt8] {
        let response: HTTPTransport.Response
        do {
            response = try await transport.send("POST", url, headers: [("Content-Type", "application/json"), ("ApiSecret", secret)],
                                                body: Array(json.utf8))
        } catch {
            throw AgentError(.networkError, "\(error)")
        }
        guard (200..<300).contains(response.status) else {
            throw AgentError(.serverError, "POST \(Self.withoutQuery(url)) answered HTTP \(response.status)")
        }
        return response.body
    }

    private func send(_ method: String, _ url: String) async throws(AgentError) -> HTTPTransport.Response {
        do {
            return try await transport.send(method, url)
        } catch {
            throw AgentError(.networkError, "\(error)")
        }
    }

    /// A Location made absolute: an absolute URL (any scheme) as it is, a path on `base`'s origin.
    static func resolve(_ location: String, against base: String) -> String {
        guard location.hasPrefix("/"), !location.hasPrefix("//"),
              let url = URL(string: base), let scheme = url.scheme, let host = url.host else { return location }
        return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")\(location)"
    }

    static func withoutQuery(_ url: String) -> String { String(url.prefix { $0 != "?" }) }
}

/// The claims the demo reads from a JWT it was given (no signature check:
/// the servers check; the demo only shows who the token is for).
struct DemoClaims: Decodable {
    let sub: String?
    let iss: String?

    init?(jwt: String) {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3 else { return nil }
        var text = String(parts[1]).replacing("-", with: "+").replacing("_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text),
              let claims = try? JSONDecoder().decode(DemoClaims.self, from: data) else { return nil }
        self = claims
    }
}
