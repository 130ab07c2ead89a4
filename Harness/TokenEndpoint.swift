/// A real OAuth 2.0 token endpoint on loopback, in the caller's process. It
/// answers the refresh_token grant strictly, as an identity server that
/// rotates refresh tokens does: a refresh token is good once, each answer
/// rotates it (`RT-1`, then `RT-2`, … with access tokens `AT-2`, …), and the
/// old one then gets `invalid_grant`. It records the requests, and can hold
/// them until the caller opens its gate, or refuse every grant.
public final class TokenEndpoint: Sendable {
    public enum Mode: Sendable { case rotate, invalidGrant }

    /// The grant's rules and what they saw; the server's threads share it.
    private final class Rotation: Sendable {
        struct State {
            var requests: [[String: String]] = []
            var currentRefreshToken: String
            var issued = 1
            var refused = 0
            var gateOpen = true
            var mode = Mode.rotate
            var stopped = false
        }

        /// Signalled: a request held at the gate waits for the change that opens it (or stops the server).
        let state: Signalled<State>
        let expiresIn: Int

        init(refreshToken: String, expiresIn: Int) {
            state = Signalled(State(currentRefreshToken: refreshToken))
            self.expiresIn = expiresIn
        }

        func answer(_ fields: [String: String]) -> LoopbackFormServer.Answer {
            state.withLock { $0.requests.append(fields) }
            state.wait { $0.gateOpen || $0.stopped }
            return state.withLock { state in
                guard fields["grant_type"] == "refresh_token", fields["client_id"] == "cli" else {
                    state.refused += 1
                    return ("400 Bad Request", #"{"error":"invalid_request","error_description":"grant_type and client_id are required"}"#)
                }
                guard state.mode == .rotate, fields["refresh_token"] == state.currentRefreshToken else {
                    state.refused += 1
                    return ("400 Bad Request", #"{"error":"invalid_grant","error_description":"the refresh token is not valid"}"#)
                }
                state.issued += 1
                state.currentRefreshToken = "RT-\(state.issued)"
                return ("200 OK", #"{"access_token":"AT-\#(state.issued)","token_type":"Bearer","expires_in":\#(expiresIn),"#
                    + #""refresh_token":"RT-\#(state.issued)"}"#)
            }
        }
    }

    private let rotation: Rotation
    private let server: LoopbackFormServer

    public var url: String { server.url("/token") }
    public var port: Int { Int(server.port) }

    /// `refreshToken`: the one refresh token it accepts first. `expiresIn`:
    /// the lifetime, in seconds, of the access tokens it issues.
    public init(refreshToken: String, expiresIn: Int) throws(HarnessError) {
        let rotation = Rotation(refreshToken: refreshToken, expiresIn: expiresIn)
        self.rotation = rotation
        server = try LoopbackFormServer { rotation.answer($0) }
    }

    deinit { stop() }

    /// Stops listening; requests held at the gate are let through.
    public func stop() {
        rotation.state.withLock { $0.stopped = true }
        server.stop()
    }

    /// Requests wait until `openGate()`.
    public func closeGate() { rotation.state.withLock { $0.gateOpen = false } }
    public func openGate() { rotation.state.withLock { $0.gateOpen = true } }
    public func set(_ mode: Mode) { rotation.state.withLock { $0.mode = mode } }

    /// The form fields of every request so far.
    public var received: [[String: String]] { rotation.state.withLock { $0.requests } }
    /// Refreshes answered with new tokens.
    public var refreshes: Int { rotation.state.withLock { $0.issued - 1 } }
    /// Requests refused (a stale refresh token, another grant, `.invalidGrant`).
    public var refused: Int { rotation.state.withLock { $0.refused } }
}
