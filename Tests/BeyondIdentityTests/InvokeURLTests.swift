import BeyondIdentity
import Testing
import TestSupport

/// The shapes `InvokeURL` tells apart, with the SDK's own examples
/// (okta-bi.md §1.3): any host, the path's last segment, the query fields.
@Suite(.ownThreads) struct InvokeURLTests {
    @Test(arguments: [
        "https://auth-us.beyondidentity.com/bi-authenticate?request=0123456789ABCDEF",
        "https://auth.thisurldoesntmatter.com/bi-authenticate?request=0123456789ABCDEF",
        "http://localhost:8083/bi-authenticate?request=eyJ.eyJ.c2ln",
        "io.github.passkey-agent:/invoke/bi-authenticate?request=eyJ.eyJ.c2ln",
        "acme://okta/bi-authenticate?state=x&request=abc",
    ])
    func sdkAuthenticateURLsAreRecognised(url: String) throws {
        let invoke = try #require(InvokeURL(url))
        guard case .authenticate(let whole, let request) = invoke else { Issue.record("not authenticate: \(invoke)"); return }
        #expect(whole == url)
        #expect(!request.isEmpty)
        #expect(url.hasSuffix(request) || url.contains("request=\(request)&"))
    }

    @Test(arguments: [
        "notAValidURL.com",
        "Ceres Faunya",
        "",
        "https://auth-us.beyondidentity.com/bi-authenticate",             // no request
        "https://auth-us.beyondidentity.com/bi-authenticate?request=",    // empty request
        "https://auth-us.beyondidentity.com/bi-authenticate?request=a&request=b",  // ambiguous
        "https://auth-us.beyondidentity.com/bi-authenticate/x?request=a", // not the last segment
        "https://auth-us.beyondidentity.com/not-bi-authenticate?request=a",
        "https://auth-us.beyondidentity.com/bi-authenticate?req=a",
        "/bi-authenticate?request=a",                                     // no scheme
        "https://example.com/bi-authenticate?request=a b",                // a space
        "https://example.com/bi-authenticate?request=é",
    ])
    func otherTextIsNotAnInvokeURL(url: String) {
        #expect(InvokeURL(url) == nil)
    }

    @Test func aLongURLIsRefusedUnread() {
        let url = "https://example.com/bi-authenticate?request=" + String(repeating: "a", count: InvokeURL.limit)
        #expect(InvokeURL(url) == nil)
    }

    @Test func bindURLCarriesItsSixFields() throws {
        let url = "io.github.passkey-agent:/invoke/bind?api_base_url=http%3A%2F%2F127.0.0.1%3A8080%2Fbi&tenant_id=t1&realm_id=r1"
            + "&identity_id=id1&job_id=job1&token=tok%2B1"
        let invoke = try #require(InvokeURL(url))
        #expect(invoke == .bind(BindParameters(apiBaseURL: "http://127.0.0.1:8080/bi", tenantId: "t1", realmId: "r1",
                                               identityId: "id1", jobId: "job1", token: "tok+1")))
    }

    @Test(arguments: ["tenant_id", "realm_id", "identity_id", "job_id", "token", "api_base_url"])
    func bindURLWithoutOneFieldIsRefused(missing: String) {
        let fields = ["api_base_url": "https://bi.example", "tenant_id": "t1", "realm_id": "r1", "identity_id": "i",
                      "job_id": "j", "token": "t"].filter { $0.key != missing }
        let url = "acme:/bind?" + fields.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "&")
        #expect(InvokeURL(url) == nil)
    }

    @Test func bindingLinkIsRecognised() throws {
        let url = "http://127.0.0.1:8080/bi/v1/tenants/t1/realms/r1/credential-binding-jobs/job-1:invokeAuthenticator?token=abc"
        #expect(InvokeURL(url) == .bindingLink(url: url))
        // Only on http(s), with a job id, under credential-binding-jobs, with a token.
        #expect(InvokeURL("acme:/v1/tenants/t1/realms/r1/credential-binding-jobs/job-1:invokeAuthenticator?token=abc") == nil)
        #expect(InvokeURL("https://bi.example/v1/credential-binding-jobs/:invokeAuthenticator?token=abc") == nil)
        #expect(InvokeURL("https://bi.example/v1/jobs/job-1:invokeAuthenticator?token=abc") == nil)
        #expect(InvokeURL("https://bi.example/v1/credential-binding-jobs/job-1:invokeAuthenticator") == nil)
    }
}
