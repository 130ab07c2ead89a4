import Foundation
import TestSupport

/// A loopback OAuth token endpoint that rotates the refresh token on every
/// grant, with the reuse grace that Okta ("refresh token reuse interval")
/// and Auth0 ("reuse interval") give: the refresh token just replaced is
/// still taken, once more, in place of its successor.
///
/// Why the grace belongs in the model: the endpoint rotates the token the
/// moment it answers, and a client killed between that answer and its own
/// fsync can only ever hold the previous token. No client can close that
/// window; a server without the grace would make every such crash a forced
/// sign-in. What the client *can* promise — and what the fault injection
/// checks — is that it never holds anything older, and never goes back
/// behind a rotation it acknowledged (the grace cannot tell that apart from
/// a lost answer, so the fault injection checks it against its own record
/// of acknowledged rotations).
///
/// The HTTP side is the harness's `LoopbackFormServer`; this holds the grant's rules.
final class RotatingTokenEndpoint: Sendable {
    /// One refresh_token grant as the endpoint saw it.
    struct Grant {
        /// N of the `RT-N` presented (nil when it was not of that form).
        let presented: Int?
        /// The newest refresh token issued when the grant arrived.
        let newest: Int
        /// Whether it was taken only thanks to the reuse grace.
        let byGrace: Bool
        let accepted: Bool
    }

    /// What the grants saw; the server's threads share it.
    private final class Record: @unchecked Sendable {
        // @unchecked: `issued` and `grants` are guarded by `lock`.
        let lock = NSLock()
        var issued = 1
        var grants: [Grant] = []

        func locked<T>(_ body: () -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body()
        }
    }

    private let record: Record
    private let server: LoopbackFormServer

    var url: String { server.url("/token") }

    init() throws {
        let record = Record()
        self.record = record
        server = try LoopbackFormServer { Self.answer($0, record) }
    }

    deinit { stop() }

    func stop() { server.stop() }

    /// N of the newest refresh token issued, `RT-N`.
    var newest: Int { record.locked { record.issued } }

    /// Every grant so far, oldest first.
    var received: [Grant] { record.locked { record.grants } }

    /// Access tokens are issued already expired (`expires_in` 0), so every
    /// `token.get` with a `minValid` refreshes: each one is a rotation.
    private static func answer(_ fields: [String: String], _ record: Record) -> LoopbackFormServer.Answer {
        record.locked {
            let presented = fields["refresh_token"].flatMap { $0.hasPrefix("RT-") ? Int($0.dropFirst(3)) : nil }
            let current = presented == record.issued
            let grace = presented == record.issued - 1
            let accepted = fields["grant_type"] == "refresh_token" && fields["client_id"] == "cli" && (current || grace)
            record.grants.append(Grant(presented: presented, newest: record.issued, byGrace: accepted && grace, accepted: accepted))
            guard accepted else {
                return ("400 Bad Request", #"{"error":"invalid_grant","error_description":"the refresh token is not valid"}"#)
            }
            record.issued += 1
            return ("200 OK", #"{"access_token":"AT-\#(record.issued)","token_type":"Bearer","expires_in":0,"refresh_token":"RT-\#(record.issued)"}"#)
        }
    }
}
