import DecodingErrors
import FoundationEssentials
import Tokens
import URLPolicy

/// A device authorization in progress (RFC 8628 §3.2): what the user is
/// shown — the user code and where to enter it — and when it expires. The
/// device code is a secret of the login: it stays inside, and printing this
/// value does not show it.
public struct DeviceAuthorization: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let userCode: String
    public let verificationURI: String
    public let verificationURIComplete: String?
    /// Seconds since 1970.
    public let expiresAt: Int64
    /// Seconds between polls: the server's (5 when it gives none, kept within
    /// 1 s to an hour), plus 5 for every `slow_down`.
    public internal(set) var interval: Int64
    let deviceCode: String

    static let defaultInterval: Int64 = 5
    static let longestInterval: Int64 = 3600

    /// Reads the device authorization endpoint's JSON answer from `url`,
    /// received at `now`. Everything is shown to the user, so the user code
    /// must be printable (no terminal escapes) and the URIs must pass the
    /// `Endpoint` rule.
    public init(answer bytes: [UInt8], url: String, now: Int64) throws(OpenIDError) {
        func malformed(_ reason: String) -> OpenIDError { .malformedResponse(url: url, reason: reason) }
        let raw: Raw
        do {
            raw = try JSONDecoder().decode(Raw.self, from: Data(bytes))
        } catch {
            guard let problem = DecodingProblem(error), !problem.path.isEmpty else { throw malformed("it is not a JSON object") }
            throw malformed("`\(problem.path)` has the wrong type")
        }
        guard let deviceCode = raw.device_code, !deviceCode.isEmpty, deviceCode.utf8.count <= 4096 else {
            throw malformed("`device_code` is missing or longer than 4096 bytes")
        }
        guard let userCode = raw.user_code, !userCode.isEmpty, userCode.count <= 64,
              userCode.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control && $0.value != 0x7F }) else {
            throw malformed("`user_code` is missing, longer than 64 characters or not printable")
        }
        guard let uri = raw.verification_uri ?? raw.verification_url else { throw malformed("`verification_uri` is missing") }
        if let problem = Endpoint.problem(uri) { throw malformed("`verification_uri` cannot be shown: \(problem)") }
        let complete = raw.verification_uri_complete.flatMap { Endpoint.problem($0) == nil ? $0 : nil }
        guard let lifetime = raw.expires_in?.seconds, lifetime > 0 else { throw malformed("`expires_in` is missing or not a positive number") }
        let interval = raw.interval?.seconds ?? Self.defaultInterval
        self.init(userCode: userCode, verificationURI: uri, verificationURIComplete: complete,
                  expiresAt: OutsideSeconds.instant(lifetime, after: now),
                  interval: min(max(interval, 1), Self.longestInterval), deviceCode: deviceCode)
    }

    init(userCode: String, verificationURI: String, verificationURIComplete: String?, expiresAt: Int64, interval: Int64,
         deviceCode: String) {
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresAt = expiresAt
        self.interval = interval
        self.deviceCode = deviceCode
    }

    public var description: String {
        "DeviceAuthorization(userCode: \(userCode), verificationURI: \(verificationURI), expiresAt: \(expiresAt), interval: \(interval))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["userCode": userCode, "verificationURI": verificationURI, "expiresAt": expiresAt, "interval": interval])
    }

    private struct Raw: Decodable {
        var device_code: String?
        var user_code: String?
        var verification_uri: String?
        /// Google's spelling.
        var verification_url: String?
        var verification_uri_complete: String?
        var expires_in: Seconds?
        var interval: Seconds?
    }

    /// A number of seconds: a JSON number (any, saturated) or a string of digits.
    private struct Seconds: Decodable {
        var seconds: Int64?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                seconds = OutsideSeconds.whole(number)
            } else {
                seconds = OutsideSeconds.whole(try container.decode(String.self))
            }
        }
    }
}
