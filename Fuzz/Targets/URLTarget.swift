import FoundationEssentials
import Tokens
import WebAuthnClient

#if canImport(Glibc)
import Glibc
#endif

extension FuzzTarget {
    /// URLs the agent is handed: a WebAuthn caller origin and the rpId it
    /// claims, and a token endpoint or issuer in a `token put` document.
    /// Beyond not crashing: an origin re-parses from its serialisation, and a
    /// plain-http endpoint the agent accepts connects to this machine only,
    /// judged by Foundation's `URL` (what the HTTP client connects to) and a
    /// loopback check written independently of the one in Tokens.
    static let urls = FuzzTarget(
        name: "urls",
        summary: "text as a WebAuthn origin (+ rpId) and as a token_endpoint/issuer in a token put document",
        maximumLength: 1024,
        seeds: {
            [
                Seed("origin", text: "https://login.example.com"),
                Seed("origin-port-localhost", text: "http://localhost:8080"),
                Seed("endpoint-loopback-ipv6", text: "http://[::1]:18080/token"),
                Seed("endpoint-userinfo", text: "http://127.0.0.1:1@127.0.0.2:18080/token"),
                Seed("endpoint-localhost-userinfo", text: "http://localhost:80@evil.example/token"),
                Seed("endpoint-dns-127", text: "http://127.evil.example/token"),
                Seed("endpoint-https", text: "https://id.example.com/oauth2/v1/token?x=1#f"),
            ]
        },
        run: { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            if let origin = try? WebAuthnOrigin(text) {
                try expect((try? WebAuthnOrigin(origin.serialization)) == origin,
                           "an origin does not re-parse from its serialisation")
                let labels = origin.host.split(separator: ".")
                for requested in [nil, origin.host, labels.dropFirst().joined(separator: "."), String(labels.last ?? "")] {
                    _ = try? origin.relyingPartyId(requested)
                }
            }
            guard let quoted = try? JSONEncoder().encode(text), case let member = String(decoding: quoted, as: UTF8.self) else { return }
            for field in ["token_endpoint", "issuer"] {
                let other = field == "issuer" ? "token_endpoint" : "issuer"
                let document = #"{"access_token":"a","token_type":"Bearer","client_id":"c","\#(other)":"https://example.com","\#(field)":\#(member)}"#
                guard (try? TokenDocument.tokenSet(from: Array(document.utf8), now: 0)) != nil else { continue }
                if text.lowercased().hasPrefix("https://") { continue }
                try expect(LoopbackOracle.connectsToThisMachineOnly(text),
                           "the agent accepts \(field) \(text.debugDescription), which sends tokens in clear off this machine")
            }
        })
}

/// An independent judge of "plain http to this machine only".
enum LoopbackOracle {
    static func connectsToThisMachineOnly(_ text: String) -> Bool {
        guard let url = URL(string: text), url.scheme?.lowercased() == "http",
              url.user == nil, url.password == nil, let host = url.host(percentEncoded: false)?.lowercased()
        else { return false }
        if host == "localhost" { return true }
        var v4 = in_addr()
        // inet_pton takes only the four-decimal-octet spelling, as a check must.
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard inet_pton(AF_INET6, bare, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { Array($0) } == [UInt8](repeating: 0, count: 15) + [1]
    }
}
