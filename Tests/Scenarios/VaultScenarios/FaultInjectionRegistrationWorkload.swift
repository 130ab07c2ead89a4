import Foundation
import TestSupport

/// `webauthn.create` of discoverable credentials on the software
/// authenticator: each one rewrites its state file (credentials and the
/// signature counter's reserved ceiling). Users come from a pool of 40, so
/// a user's new credential replaces the old one and the authenticator's
/// 100 discoverable slots never fill.
final class RegistrationWorkload: FaultWorkload, @unchecked Sendable {
    static let rpId = "fault.example"
    static let users = 40
    /// Credentials checked per verification besides the newest: a lost state
    /// write loses every credential at once, so a sample finds it. The final
    /// verification checks them all.
    var sampled = 6

    private var nextUser = 0
    /// User → the id of the credential the agent acknowledged for it.
    private var credentials: [Int: String] = [:]
    private var inFlightUser: Int?
    /// The highest signature counter seen in any answer: it must only grow.
    private var highestCounter: UInt32 = 0
    private var sampler = SystemRandomNumberGenerator()

    init(socketPath: String, tally: FaultTally) {
        super.init(name: "authenticator state (webauthn.create)", socketPath: socketPath, tally: tally,
                   killWindow: 2_000...120_000)
    }

    private static let device = "{\"device\":\"virtual\"}"
    private static let origin = "https://\(rpId)"

    /// The signature counter in a response's base64url authenticatorData (bytes 33–36, big-endian).
    static func signCount(_ result: [String: Any]) -> UInt32? {
        guard let encoded = (result["response"] as? [String: Any])?["authenticatorData"] as? String else { return nil }
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), data.count >= 37 else { return nil }
        return data[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Checks that `counter` is above every counter seen so far, and records it.
    private func see(_ counter: UInt32?, _ what: String) {
        guard let counter else {
            tally.fail(.counterWentBack, "\(what): no signature counter in the answer")
            return
        }
        let previous = locked { () -> UInt32 in
            defer { highestCounter = max(highestCounter, counter) }
            return highestCounter
        }
        if counter <= previous { tally.fail(.counterWentBack, "\(what): \(counter) after \(previous)") }
    }

    override func clients(round: Int) -> [@Sendable () -> Void] {
        [{ [self] in
            guard let client = try? LineClient(path: socketPath) else { return }
            for index in 1...1_000_000 {
                let user = locked { () -> Int in
                    defer { nextUser = (nextUser + 1) % Self.users }
                    inFlightUser = nextUser
                    return nextUser
                }
                let userId = Data("fault-user-\(user)".utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                let options = WebAuthnFixtures.creationOptions(rpId: Self.rpId, userName: "user\(user)", userId: userId)
                let params = "{\"options\":\(options),\"origin\":\"\(Self.origin)\",\"device\":\(Self.device)}"
                guard let result = Self.result(client, index, "webauthn.create", params),
                      let id = result["id"] as? String else { return }
                see(Self.signCount(result), "registration of user\(user)")
                locked {
                    credentials[user] = id
                    inFlightUser = nil
                }
                tally.acknowledged(by: name)
            }
        }]
    }

    override func verify(_ client: LineClient) {
        let (known, pending) = locked { (credentials, inFlightUser) }
        // The newest acknowledged registration and the user of the one in
        // flight (it may have replaced that user's credential: checked now,
        // or a later check would take the replacement for a loss), plus a
        // random sample of the rest.
        let newest = locked { (nextUser + Self.users - (inFlightUser == nil ? 1 : 2)) % Self.users }
        let always = Set([newest] + (pending.map { [$0] } ?? []))
        var users = Set(known.keys.filter(always.contains))
        let others = known.keys.filter { !always.contains($0) }
        users.formUnion(others.shuffled(using: &sampler).prefix(sampled))
        // The in-flight user first: should the device hang later on, its fate is known.
        let order = (pending.map { [$0] } ?? []) + users.subtracting(pending.map { [$0] } ?? []).sorted()
        for (index, user) in order.enumerated() {
            guard let id = known[user] else { continue }
            tally.checkedCredentials(1)
            let options = WebAuthnFixtures.requestOptions(rpId: Self.rpId, allow: [id])
            let params = "{\"options\":\(options),\"origin\":\"\(Self.origin)\",\"device\":\(Self.device)}"
            switch Self.answer(client, 400 + index, "webauthn.get", params, timeout: 10) {
            case .success(let result):
                see(Self.signCount(result), "assertion by user\(user)'s credential")
            case .failure(let error) where error.description.hasPrefix("no answer"):
                // The device is stuck for the rest of this agent's life: the next restart frees it.
                tally.fail(.requestHung, "webauthn.get of user\(user)'s credential after a kill during registrations, "
                           + "\(index) checks in: \(error.description)")
                locked {
                    // Unchecked, the in-flight user's credential may since have been replaced: forget it.
                    if user == pending { credentials[user] = nil }
                    inFlightUser = nil
                }
                return
            case .failure(let error):
                // A registration for the same user in flight at the kill may have replaced it.
                if user == pending && error.description.hasPrefix("no_credentials") {
                    locked { credentials[user] = nil }
                } else {
                    tally.fail(.lostCredential, "user\(user)'s acknowledged credential \(id): \(error.description)")
                }
            }
        }
        locked { inFlightUser = nil }
    }
}
