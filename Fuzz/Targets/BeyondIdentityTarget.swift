@_spi(Fuzzing) import BeyondIdentity
import Base64
import FoundationEssentials
import OpenID
import Tokens
import URLPolicy

extension FuzzTarget {
    /// What a browser hands `passkey invoke` and what a Beyond-Identity-like
    /// identity provider answers: the invoke URL, the request JWT (its header,
    /// and the bytes as its claims), the `jku` against a trusted-host list and
    /// the prove answer's redirect. Beyond not crashing: an accepted `jku` is
    /// an `Endpoint`-usable URL on exactly a trusted host; an accepted payload
    /// names only usable URLs and single-segment ids; an accepted redirect is
    /// the redirect URI followed by its query.
    static let beyondIdentity = FuzzTarget(
        name: "beyond-identity",
        summary: "text as an invoke URL (InvokeURL), a request JWT header, a jku against trusted hosts and a prove redirect; JSON as a request JWT's claims",
        maximumLength: 16384,
        seeds: {
            let claims = #"{"iss":"https://bi.example.com/v1/tenants/t1/realms/r1/applications/a1","sub":"tx","aud":[],"iat":1700000000,"#
                + #""nbf":1699999940,"exp":1700000300,"jti":"j","cid":"c","verb":"authenticate","app":{"id":"a1","display_name":"Dev"},"#
                + #""authn":{"base_url":"https://bi.example.com","tid":"t1","rid":"r1","aid":"a1","action":{"prove":{"transaction_id":"tx","#
                + #""nonce":"q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80","bi_req":"W10","rp_id":"bi.passkey.test","#
                + #""origin":"https://bi.passkey.test","allow_credentials":["AQID"]}},"redirect_uri":"https://okta.example/cb","state":"s"},"#
                + #""origin":{"ip":"127.0.0.1","ua":"curl","geo":"","ref":""}}"#
            let header = #"{"typ":"JWT","alg":"RS256","kid":"k1","jku":"https://bi.example.com/v1/tenants/t1/realms/r1/applications/a1/.well-known/jwks.json"}"#
            let token = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".c2ln"
            return [
                Seed("authenticate-url", text: "io.github.passkey-agent:/invoke/bi-authenticate?request=" + token),
                Seed("sdk-url", text: "https://auth-us.beyondidentity.com/bi-authenticate?request=0123456789ABCDEF"),
                Seed("bind-url", text: "acme:/bind?api_base_url=https%3A%2F%2Fbi.example.com&tenant_id=t1&realm_id=r1&identity_id=i&job_id=j&token=t"),
                Seed("binding-link", text: "http://127.0.0.1:8080/bi/v1/tenants/t1/realms/r1/credential-binding-jobs/j:invokeAuthenticator?token=t"),
                Seed("jku", text: "http://127.0.0.1:8080/bi/.well-known/jwks.json"),
                Seed("application-jku", text: "https://bi.example.com/v1/tenants/t1/realms/r1/applications/a1/.well-known/jwks.json"),
                Seed("application-query", text: "https://bi.example.com/v1/tenants/t1/realms/r1/applications/a1?x=1"),
                Seed("application-walk", text: "https://bi.example.com/v1/tenants/t1/realms/r1/applications/a1/../../a2/.well-known/jwks.json"),
                Seed("application-sibling", text: "https://bi.example.com/v1/tenants/t1/realms/r1/applications/a10/.well-known/jwks.json"),
                Seed("realm-link", text: "https://bi.example.com/v1/tenants/t1/realms/r1/identities/i/credential-binding-jobs/j:invokeAuthenticator?token=t"),
                Seed("redirect", text: "https://okta.example/cb?code=c&state=s"),
                Seed("request-jwt", text: token),
                Seed("claims", text: claims),
            ]
        },
        run: { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            switch InvokeURL(text) {
            case .authenticate(let url, let request)?:
                try expect(url == text && !request.isEmpty, "an authenticate URL without its request was accepted")
            case .bind(let bind)?:
                try expect(![bind.apiBaseURL, bind.tenantId, bind.realmId, bind.identityId, bind.jobId, bind.token].contains(where: \.isEmpty),
                           "a bind URL with an empty field was accepted")
            case .bindingLink?:
                try expect(text.lowercased().hasPrefix("http"), "a binding link that is not http(s) was accepted")
            case nil:
                break
            }
            if RequestParsing.isTrusted(text, trustedHosts: ["bi.example.com", "127.0.0.1:8080"]) {
                try expect(Endpoint.problem(text) == nil, "an unusable jku was trusted")
                let authority = text.drop { $0 != "/" }.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
                try expect(["bi.example.com", "bi.example.com:443", "127.0.0.1:8080"].contains(authority),
                           "a jku on \(authority.debugDescription) was trusted")
            }
            // Trusted applications: under the issuer's path on a segment
            // boundary, never through a dot segment or an encoded slash.
            let issuer = "https://bi.example.com/v1/tenants/t1/realms/r1/applications/a1"
            let under = RequestParsing.underApplication(text, issuer: issuer)
            if under.keySet {
                let lower = text.lowercased()
                let rest = [issuer.lowercased(), "https://bi.example.com:443/v1/tenants/t1/realms/r1/applications/a1"]
                    .first { lower.hasPrefix($0) }.map { lower.dropFirst($0.count) }
                try expect(rest.map { $0.isEmpty || "/?#".contains($0.first!) } == true, "a URL outside the application was trusted")
                try expect(!lower.contains("/../") && !lower.contains("%2e%2e") && !lower.contains("%2f") && !lower.hasSuffix("/.."),
                           "a path that walks out of the application was trusted")
            }
            if under.bindingLink {
                try expect(text.lowercased().contains("/v1/tenants/t1/realms/r1/"), "a binding link of another realm was trusted")
            }
            if RequestParsing.acceptsRedirect(text, to: "https://okta.example/cb", state: "s") {
                try expect(text.hasPrefix("https://okta.example/cb?"), "a redirect elsewhere was accepted")
            }
            for payload in [bytes, RequestParsing.header(text)?.payload].compactMap({ $0 }) {
                guard let request = try? RequestParsing.request(payload: payload) else { continue }
                try expect(Endpoint.problem(request.baseURL) == nil && Endpoint.problem(request.redirectURI) == nil,
                           "a request with unusable URLs was accepted")
                for id in [request.tenantId, request.realmId, request.transactionId] {
                    try expect(!id.isEmpty && !id.contains("/") && !id.contains("?") && id != "..", "a path id \(id.debugDescription) was accepted")
                }
                _ = request.assertionOptions
            }
        })
}
