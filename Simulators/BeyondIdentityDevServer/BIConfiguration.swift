import DevServerBase
/// The Beyond-Identity-like IdP's settings (docs/DEVSERVER.md "Beyond
/// Identity"): where it sends the browser, how, and for which RP ID its
/// passkeys are made.
public struct BIConfiguration: Sendable {
    /// How `/authorize` hands over the invoke URL: a 302 (`automatic`) or
    /// JSON `{"authenticate_url"}` (`manual`), as BI's authenticator config says.
    public enum Invocation: String, Sendable, CaseIterable {
        case automatic
        case manual
    }

    /// The app's invoke URL; authenticate URLs are `<invoke url>/bi-authenticate?request=…`.
    public var invokeURL: String
    public var invocation: Invocation
    /// The RP ID of realm r1's passkeys; their origin is `https://<rp id>`.
    public var rpId: String
    /// Usernames whose proofs are refused with `policy_denied` (a suspended identity).
    public var deniedUsers: Set<String>
    /// How long a request JWT (its transaction) can be proved.
    public var transactionLifetime: Duration
    /// How long a credential binding link can be redeemed.
    public var bindingJobLifetime: Duration

    public init(invokeURL: String = "io.github.passkey-agent:/invoke", invocation: Invocation = .automatic,
                rpId: String = "bi.passkey.test", deniedUsers: Set<String> = [],
                transactionLifetime: Duration = .seconds(300), bindingJobLifetime: Duration = .seconds(3600)) {
        self.invokeURL = invokeURL
        self.invocation = invocation
        self.rpId = rpId
        self.deniedUsers = deniedUsers
        self.transactionLifetime = transactionLifetime
        self.bindingJobLifetime = bindingJobLifetime
    }

    /// The origin realm r1's passkeys are made and used from.
    public var origin: String { "https://\(rpId)" }

    package func validate() throws(DevServerError) {
        // An invoke URL is a redirect target like any other: https, a
        // reverse-DNS private-use scheme, or a loopback literal.
        if let reason = RedirectURI.registrationProblem(invokeURL) {
            throw .invalidConfiguration("BI invoke URL \"\(invokeURL.prefix(200))\"", reason: reason)
        }
        guard !invokeURL.contains("?") else {
            throw .invalidConfiguration("BI invoke URL \"\(invokeURL.prefix(200))\"", reason: "it has no query; /bi-authenticate is appended")
        }
        guard AllowList.isValidRpId(rpId) else {
            throw .invalidConfiguration("BI RP ID \"\(rpId.prefix(200))\"", reason: "use a lowercase domain such as bi.passkey.test")
        }
        for (name, lifetime) in [("BI transaction lifetime", transactionLifetime), ("BI binding job lifetime", bindingJobLifetime)] {
            let seconds = lifetime.components.seconds
            guard seconds >= 1, seconds <= Int64(Lifetimes.maxSeconds) else {
                throw .invalidConfiguration("\(name) \(seconds) s", reason: "use 1 to \(Lifetimes.maxSeconds) seconds")
            }
        }
        for user in deniedUsers where !BIIdentity.isValidUsername(user) {
            throw .invalidConfiguration("denied BI user \"\(user.prefix(80))\"", reason: "use 1 to 128 printable characters")
        }
    }
}
