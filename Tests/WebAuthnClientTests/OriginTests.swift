import Testing
import TestSupport
@testable import WebAuthnClient

/// `WebAuthnOrigin`: what a caller's origin may be (a secure context, no
/// path, no user information), its serialization as a browser writes it in
/// clientDataJSON, and the RP IDs it may use (WebAuthn L3 §5.1.3 step 7).
@Suite(.ownThreads) struct OriginTests {
    @Test("origins serialize as a browser writes them: scheme and host in lower case, the default port left out",
          arguments: [("https://example.org", "https://example.org"), ("HTTPS://Example.ORG/", "https://example.org"),
                      ("https://example.org:8443", "https://example.org:8443"), ("https://example.org:443", "https://example.org"),
                      ("http://localhost:80", "http://localhost"), ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
                      ("http://app.localhost:3000", "http://app.localhost:3000"), ("https://example.org:08443", "https://example.org:8443"),
                      ("http://[::1]", "http://[::1]"), ("http://[::1]:8080", "http://[::1]:8080"),
                      ("https://[2001:DB8::1]:8443", "https://[2001:db8::1]:8443"),
                      // As a URL parser reads a port: empty is none, leading zeros are allowed.
                      ("https://example.org:", "https://example.org"), ("https://example.org:000443", "https://example.org"),
                      ("https://example.org:0000008443", "https://example.org:8443")])
    func serialization(text: String, serialized: String) throws {
        #expect(try WebAuthnOrigin(text).serialization == serialized)
    }

    @Test("the host of an IPv6 origin is its bracketed address, never with the port")
    func ipv6Host() throws {
        let origin = try WebAuthnOrigin("http://[::1]:8080")
        #expect(origin.host == "[::1]" && origin.scheme == "http")
        #expect(try origin.relyingPartyId(nil) == "[::1]")
    }

    @Test("not an origin: a path, a query, user information, a bad port, no host, or plain http off this machine",
          arguments: ["example.org", "https://example.org/login", "https://example.org//", "https://example.org?x=1", "https://example.org#top", "https://exa mple.org",
                      "https://user@example.org", "https://evil.example@example.org", "https://example.org:-1",
                      "https://example.org:+443", "https://example.org:65536", "https://example.org:8o", "https://", "https://:443",
                      "https://[::1", "https://[::1]x", "https://::1", "http://example.org", "http://127.0.0.1.example.org",
                      "http://[2001:db8::1]", "ftp://example.org", "https://example.org:0065536",
                      // A bracketed host must be an IPv6 address; no forbidden host code point outside one.
                      "https://[example.org]", "https://[1.2.3.4]", "https://[]", "https://exa<mple.org", "https://exa>mple.org",
                      "https://a^b.example", "https://a|b.example", "https://a]b.example", "https://a[b.example"])
    func notAnOrigin(text: String) {
        #expect(throws: CeremonyError.self) { try WebAuthnOrigin(text) }
    }

    @Test("the RP ID: the origin's host or a parent domain with a dot; the host when none is asked; case does not matter")
    func relyingPartyIds() throws {
        let origin = try WebAuthnOrigin("https://login.eu.example.org")
        #expect(try origin.relyingPartyId(nil) == "login.eu.example.org")
        #expect(try origin.relyingPartyId("login.eu.example.org") == "login.eu.example.org")
        #expect(try origin.relyingPartyId("Example.ORG") == "example.org")
        #expect(try origin.relyingPartyId("eu.example.org") == "eu.example.org")
        for foreign in ["org", "example.com", "ample.org", "other.example.org", "xlogin.eu.example.org", ""] {
            #expect(throws: CeremonyError.originNotAllowed(origin: "https://login.eu.example.org", rpId: foreign)) {
                try origin.relyingPartyId(foreign)
            }
        }
        #expect(try WebAuthnOrigin("http://localhost:8080").relyingPartyId("localhost") == "localhost")
    }

    @Test("an IP address has no parent domains: only the address itself is its RP ID")
    func ipAddressesHaveNoParents() throws {
        let origin = try WebAuthnOrigin("http://127.0.0.1:8080")
        #expect(try origin.relyingPartyId("127.0.0.1") == "127.0.0.1")
        for suffix in ["0.0.1", "0.1"] {
            #expect(throws: CeremonyError.originNotAllowed(origin: "http://127.0.0.1:8080", rpId: suffix)) {
                try origin.relyingPartyId(suffix)
            }
        }
        #expect(throws: CeremonyError.self) { try WebAuthnOrigin("https://93.184.216.34").relyingPartyId("216.34") }
        #expect(try WebAuthnOrigin("https://93.184.216.34").relyingPartyId("93.184.216.34") == "93.184.216.34")
        // With a trailing dot it is still an address (a URL parser drops the dot first).
        #expect(throws: CeremonyError.self) { try WebAuthnOrigin("https://93.184.216.34.").relyingPartyId("216.34.") }
    }

    @Test("the errors say what is wrong with the origin")
    func errorTexts() {
        #expect(CeremonyError.originNotAllowed(origin: "https://a.example", rpId: "b.example").description
            == "origin https://a.example may not use relying party id \"b.example\": the id must be the origin's host or a parent domain of it")
        #expect(throws: CeremonyError.invalidOptions("origin \"https://example.org:99999\" has a bad port")) {
            try WebAuthnOrigin("https://example.org:99999")
        }
        #expect(throws: CeremonyError.invalidOptions("origin \"https://me@example.org\" must not have user information")) {
            try WebAuthnOrigin("https://me@example.org")
        }
        #expect(throws: CeremonyError.invalidOptions("origin \"http://example.org\" must use https (http only on localhost or a loopback address)")) {
            try WebAuthnOrigin("http://example.org")
        }
    }
}
