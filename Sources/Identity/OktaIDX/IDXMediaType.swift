/// The media types Okta Identity Engine speaks (okta-bi.md §3.1).
///
/// IDX answers in ION, a JSON dialect whose forms describe themselves; the
/// client asks for it by name with the API version, and sends remediation
/// forms as JSON of the same version.
public enum IDXMediaType {
    /// `Accept` of every IDX call.
    public static let ion = "application/ion+json; okta-version=1.0.0"
    /// `Content-Type` of a remediation form.
    public static let json = "application/json; okta-version=1.0.0"
}
