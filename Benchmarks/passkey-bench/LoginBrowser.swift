import HTTPTransport

/// The person's browser in a browser-flow login, as the benchmark plays it
/// over plain HTTP: it opens the authorization page, posts the consent form
/// (the devserver's documented development shortcut, `user=…&action=allow`,
/// in place of a passkey sign-in), and follows the 302 to the loopback
/// callback. The login group's agent run and its floor both use it, so the
/// browser's part is the same in both.
struct LoginBrowser: Sendable {
    /// Each step's time, in nanoseconds.
    struct Steps: Sendable {
        var authorize: Int64
        var consent: Int64
        var callback: Int64
    }

    let transport: HTTPTransport
    /// The subject every login signs in as.
    static let user = "alice"

    /// GET the authorization URL (the sign-in page), POST the consent to the
    /// same URL, then GET the callback the 302 names, which must be on `redirectURI`.
    func signIn(at authorizationURL: String, redirectURI: String) async throws(BenchError) -> Steps {
        let clock = ContinuousClock()
        let start = clock.now
        let page = try await BenchError.awaiting("GET /v1/authorize") { try await transport.send("GET", authorizationURL) }
        guard page.status == 200 else {
            throw .stepFailed("GET /v1/authorize", reason: "HTTP \(page.status): \(String(decoding: page.body.prefix(200), as: UTF8.self))")
        }
        let pageAt = clock.now
        let consent = try await BenchError.awaiting("POST /v1/authorize (consent)") {
            try await transport.postForm(authorizationURL, [("user", Self.user), ("action", "allow")])
        }
        guard consent.status == 302, let location = consent.header("Location"), location.hasPrefix(redirectURI + "?") else {
            throw .stepFailed("POST /v1/authorize (consent)",
                              reason: "expected a 302 to \(redirectURI), got HTTP \(consent.status) to \(consent.header("Location")?.prefix(80) ?? "nowhere")")
        }
        let consentAt = clock.now
        let callback = try await BenchError.awaiting("GET /callback") { try await transport.send("GET", location) }
        guard callback.status == 200 else {
            throw .stepFailed("GET /callback", reason: "the loopback listener answered HTTP \(callback.status)")
        }
        let end = clock.now
        return Steps(authorize: (pageAt - start).nanoseconds, consent: (consentAt - pageAt).nanoseconds,
                     callback: (end - consentAt).nanoseconds)
    }
}
