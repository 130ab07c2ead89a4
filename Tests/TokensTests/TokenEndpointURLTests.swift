import Foundation
import Testing
import TestSupport
@testable import Tokens

/// Where `token put` lets a refresh token be sent. The check used to be a
/// prefix match on the text after `http://`, so a user name that looked
/// like loopback, or a DNS name starting with "127.", sent the refresh
/// token in clear to another host. Now the URL is parsed: no user info, and
/// plain http only to a literal loopback address or `localhost`.
@Suite(.ownThreads) struct TokenEndpointURLTests {
    static let now: Int64 = 1_700_000_000

    static func put(tokenEndpoint: String) throws(TokenError) -> TokenSet {
        let json = try! JSONSerialization.data(withJSONObject: [
            "access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1",
            "issuer": "https://id.example.org", "client_id": "cli", "token_endpoint": tokenEndpoint,
        ])
        return try TokenDocument.tokenSet(from: Array(json), now: now)
    }

    static let refused = [
        // The three from issue 16: the host after the `@` is where the request goes.
        "http://127.0.0.1:1@127.0.0.2:18080/token", "http://localhost:80@evil.example/token", "http://127.evil.example/token",
        // Names that only look like loopback.
        "http://127.0.0.1.evil.example/token", "http://localhost.evil.example/token", "http://LOCALHOST./token",
        "http://localhost./token", "http://127./token", "http://127.0.0.1./token",
        // Other spellings of 127.0.0.1, which resolvers interpret but we do not.
        "http://0x7f.1/token", "http://2130706433/token", "http://0177.0.0.1/token", "http://127.1/token",
        "http://127.0.0.01/token", "http://127.0.0.256/token",
        // Percent-encoded hosts, which decode into something else than they read as.
        "http://%6c%6fcalhost/token", "http://127.0.0.1%2eevil.example/token", "http://%31%32%37.0.0.1/token",
        "https://%65vil.example/token",
        // IPv6 that is not ::1, or ::1 with a zone, or unbracketed.
        "http://[::ffff:127.0.0.1]/token", "http://[::2]/token", "http://[::1%25lo]/token", "http://::1/token",
        // User info is refused for https too: it is sent, and hides the host from a reader.
        "https://user:pass@id.example.org/token", "https://@id.example.org/token", "http://@127.0.0.1/token",
        "http://127.0.0.1\\@evil.example/token",
        // Not http(s), no host, no authority, bad port.
        "ftp://127.0.0.1/token", "http://", "https://", "https:///token", "http:/127.0.0.1/token", "http:127.0.0.1",
        "http://127.0.0.1:99999/token", "http://127.0.0.1:0/token", "http://evil.example/token", "http://1.2.3.4/token",
        "http://127.0.0.1 /token", "javascript://127.0.0.1/token",
    ]

    @Test(arguments: refused)
    func refusedEndpoints(url: String) {
        let error = #expect(throws: TokenError.self) { try Self.put(tokenEndpoint: url) }
        #expect(error?.description.contains("`token_endpoint`") == true, "\(url): \(String(describing: error))")
    }

    @Test(arguments: [
        "http://127.0.0.1:8080/token", "http://127.0.0.2:18080/token", "http://127.255.255.254/token",
        "http://localhost/token", "http://LocalHost:9000/token", "http://[::1]:8080/", "http://[0:0:0:0:0:0:0:1]/token",
        "HTTP://127.0.0.1/token", "https://id.example.org/token", "https://id.example.org:8443/oauth2/v1/token?x=1",
        "https://127.evil.example/token", "https://[2001:db8::1]/token",
    ])
    func acceptedEndpoints(url: String) throws {
        #expect(try Self.put(tokenEndpoint: url).tokenEndpoint == url)
    }

    @Test func theIssuerFollowsTheSameRule() throws {
        var members: [String: Any] = ["access_token": "at-1", "token_type": "Bearer", "issuer": "http://localhost:80@evil.example",
                                      "client_id": "cli", "token_endpoint": "https://id.example.org/token"]
        let error = #expect(throws: TokenError.self) {
            try TokenDocument.tokenSet(from: Array(try JSONSerialization.data(withJSONObject: members)), now: Self.now)
        }
        #expect(error?.description.contains("`issuer`") == true)
        members["issuer"] = "http://[::1]:8080"
        #expect(try TokenDocument.tokenSet(from: Array(try JSONSerialization.data(withJSONObject: members)), now: Self.now).issuer == "http://[::1]:8080")
    }

    /// A password in a refused URL is a secret: the error shows the URL without it.
    @Test func aRefusedURLsPasswordIsNotEchoed() {
        let error = #expect(throws: TokenError.self) {
            try Self.put(tokenEndpoint: "https://alice:s3cret-Pa55@id.example.org/token?client_secret=xyz")
        }
        let text = error?.description ?? ""
        #expect(!text.contains("s3cret-Pa55"), "\(text)")
        #expect(!text.contains("alice"), "\(text)")
        #expect(!text.contains("xyz"), "\(text)")
        #expect(text.contains("id.example.org"), "\(text)")
        #expect(text.contains("user name or password"), "\(text)")
    }
}
