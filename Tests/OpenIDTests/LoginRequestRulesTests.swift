import OpenID
import Testing
import TestSupport

/// OpenID's rules for what a login may ask, in-process: the scopes, the
/// extra parameters, a private-use redirect, a client secret, an endpoint
/// given by hand, and the flow `auto` picks.
@Suite(.ownThreads) struct LoginRequestRulesTests {
    static let metadata = ProviderMetadata(issuer: "https://id.example.com", authorizationEndpoint: "https://id.example.com/authorize",
                                           tokenEndpoint: "https://id.example.com/token", jwksURI: "https://id.example.com/keys")

    static var withDevice: ProviderMetadata {
        var metadata = metadata
        metadata.deviceAuthorizationEndpoint = "https://id.example.com/device"
        return metadata
    }

    @Test("scopes: 1 to 32 RFC 6749 scope-tokens of at most 256 bytes")
    func scopes() throws {
        try LoginRequestRules.checkScopes(LoginRequestRules.defaultScopes)
        try LoginRequestRules.checkScopes(["api://default/read", "x!#[]~"])
        #expect(throws: LoginRequestError.scopeCount) { try LoginRequestRules.checkScopes([]) }
        #expect(throws: LoginRequestError.scopeCount) { try LoginRequestRules.checkScopes((0...32).map { "s\($0)" }) }
        for bad in ["", "two words", "quo\"te", "back\\slash", "tab\t", "é", String(repeating: "a", count: 257)] {
            #expect(throws: LoginRequestError.scope, "\(bad)") { try LoginRequestRules.checkScopes(["openid", bad]) }
        }
    }

    @Test("extra parameters: at most 16, sorted, none the request sets itself, no control characters")
    func extraParameters() throws {
        let sorted = try LoginRequestRules.checkExtra(["prompt": "login", "idp": "0oa1", "login_hint": "jane@example.com"])
        #expect(sorted.map(\.0) == ["idp", "login_hint", "prompt"])
        #expect(sorted.map(\.1) == ["0oa1", "jane@example.com", "login"])
        #expect(try LoginRequestRules.checkExtra([:]).isEmpty)
        for name in LoginRequestRules.reservedParameters {
            #expect(throws: LoginRequestError.reservedParameter(name)) { try LoginRequestRules.checkExtra([name: "x"]) }
        }
        #expect(LoginRequestRules.reservedParameters.isSuperset(of: ["state", "nonce", "redirect_uri", "code_challenge"]))
        #expect(throws: LoginRequestError.extraCount) {
            try LoginRequestRules.checkExtra(Dictionary(uniqueKeysWithValues: (0...16).map { ("p\($0)", "v") }))
        }
        for (name, value) in [("", "v"), (String(repeating: "n", count: 65), "v"), ("n", String(repeating: "v", count: 1025)),
                              ("n\n", "v"), ("n", "line\r\nInjected: yes")] {
            #expect(throws: LoginRequestError.extraParameter) { try LoginRequestRules.checkExtra([name: value]) }
        }
        #expect(LoginRequestError.reservedParameter("state").description
                == "`state` is set by the agent itself and cannot be given as an extra parameter")
    }

    @Test("a private-use redirect: a reverse domain-name scheme (RFC 8252 §7.1), never http(s), no query or fragment")
    func privateUseRedirect() throws {
        #expect(try LoginRequestRules.checkPrivateUseRedirect("com.example.app:/callback") == "com.example.app:/callback")
        #expect(try LoginRequestRules.checkPrivateUseRedirect("Com.Example-App+x:/cb") == "Com.Example-App+x:/cb")
        for bad in ["callback", String(repeating: "a", count: 2049) + ":"] {
            #expect(throws: LoginRequestError.notPrivateUseRedirect, "\(bad.prefix(40))") {
                try LoginRequestRules.checkPrivateUseRedirect(bad)
            }
        }
        for bad in ["https://example.com/callback", "http://127.0.0.1/cb", "myapp:/cb", "1com.example:/cb", "com.example.app:/cb?x=1",
                    "com.example.app:/cb#frag", "com.example.app:/c b", "com.exa_mple:/cb", "cöm.example:/cb"] {
            #expect(throws: LoginRequestError.privateUseRedirectForm, "\(bad)") { try LoginRequestRules.checkPrivateUseRedirect(bad) }
        }
    }

    @Test("a client secret: 1 to 1024 characters without control characters")
    func clientSecret() throws {
        try LoginRequestRules.checkClientSecret("s3cr3t with spaces")
        for bad in ["", String(repeating: "s", count: 1025), "line\nbreak", "del\u{7f}"] {
            #expect(throws: LoginRequestError.clientSecret) { try LoginRequestRules.checkClientSecret(bad) }
        }
    }

    @Test("an endpoint given by hand passes the rule every discovered one does; the discovered metadata keeps the rest")
    func endpoints() throws {
        #expect(try LoginRequestRules.checkEndpoint(nil, option: "--revocation-endpoint") == nil)
        #expect(try LoginRequestRules.checkEndpoint("https://id.example.com/revoke", option: "--revocation-endpoint")
                == "https://id.example.com/revoke")
        #expect(try LoginRequestRules.checkEndpoint("http://127.0.0.1:8080/device", option: "--x") == "http://127.0.0.1:8080/device")
        #expect(throws: LoginRequestError.endpointForm(option: "--x")) {
            try LoginRequestRules.checkEndpoint("https://id.example.com/revoke#top", option: "--x")
        }
        #expect(throws: LoginRequestError.endpointForm(option: "--x")) {
            try LoginRequestRules.checkEndpoint("https://id.example.com/" + String(repeating: "a", count: 2048), option: "--x")
        }
        for bad in ["http://id.example.com/revoke", "https://user:pw@id.example.com/", "ftp://id.example.com/", "https://ex%61mple.com/"] {
            do {
                _ = try LoginRequestRules.checkEndpoint(bad, option: "--revocation-endpoint")
                Issue.record("\(bad) was accepted")
            } catch {
                guard case .unusableEndpoint(let option, _, _) = error else { Issue.record("\(bad): \(error)"); continue }
                #expect(option == "--revocation-endpoint" && !error.description.contains("pw"), "\(error)")
            }
        }
        let overridden = LoginRequestRules.overriding(Self.withDevice, deviceAuthorization: nil, revocation: "https://id.example.com/revoke")
        #expect(overridden.deviceAuthorizationEndpoint == "https://id.example.com/device")
        #expect(overridden.revocationEndpoint == "https://id.example.com/revoke")
        #expect(LoginRequestRules.overriding(Self.metadata, deviceAuthorization: "https://other.example/d", revocation: nil)
                .deviceAuthorizationEndpoint == "https://other.example/d")
    }

    @Test("auto: a browser with a display; else the device grant when offered and not routed to an IdP; else paste")
    func autoFlow() throws {
        #expect(try LoginRequestRules.chooseFlow(nil, display: true, metadata: Self.withDevice) == .browser)
        #expect(try LoginRequestRules.chooseFlow(nil, display: false, metadata: Self.withDevice) == .device)
        #expect(try LoginRequestRules.chooseFlow(nil, display: false, metadata: Self.metadata) == .paste)
        #expect(try LoginRequestRules.chooseFlow(nil, display: false, metadata: Self.withDevice, routed: true) == .paste)
        #expect(try LoginRequestRules.chooseFlow(nil, display: true, metadata: Self.withDevice, routed: true) == .browser)
    }

    @Test("an asked flow is kept; the device flow needs the provider's endpoint and no IdP routing")
    func askedFlow() throws {
        for flow in [OpenIDFlow.browser, .paste] {
            #expect(try LoginRequestRules.chooseFlow(flow, display: false, metadata: Self.metadata, routed: true) == flow)
        }
        #expect(try LoginRequestRules.chooseFlow(.device, display: true, metadata: Self.withDevice) == .device)
        #expect(throws: LoginRequestError.noDeviceAuthorizationEndpoint(issuer: "https://id.example.com")) {
            try LoginRequestRules.chooseFlow(.device, display: false, metadata: Self.metadata)
        }
        #expect(throws: LoginRequestError.deviceFlowRouted) {
            try LoginRequestRules.chooseFlow(.device, display: false, metadata: Self.withDevice, routed: true)
        }
    }
}
