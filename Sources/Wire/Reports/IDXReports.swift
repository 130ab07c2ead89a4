/// A message of an Okta IDX answer (okta-bi.md §3.4), one line: what
/// OktaIDX reads from the server and what `login.begin` / `login.idx.proceed`
/// show the person, in one form.
public struct IDXMessage: Codable, Sendable, Equatable {
    /// One line of at most 200 characters without control characters.
    public var text: String
    /// The i18n key, e.g. `idx.session.expired`, `incorrectPassword`.
    public var key: String?
    /// `ERROR`, `INFO`, … (upper-cased as sent).
    public var severity: String?

    public init(text: String, key: String? = nil, severity: String? = nil) {
        self.text = text
        self.key = key
        self.severity = severity
    }

    public var isError: Bool { severity?.uppercased() == "ERROR" }
}
