import DevServerBase
import FoundationEssentials
import Hummingbird
import URLPolicy

/// POST BI/…/identities/<id>/credential-binding-jobs (ApiSecret) makes a
/// binding job with RETURN delivery and answers its link;
/// GET BI/…/credential-binding-jobs/<job>:invokeAuthenticator?token=… sends
/// the browser to the invoke URL's `/bind` route with what the app needs.
extension BIServer {
    struct JobBody: Decodable {
        struct Job: Decodable { var delivery_method: String?; var post_binding_redirect_uri: String? }
        var job: Job?
    }

    struct JobAnswer: Encodable {
        struct Job: Encodable { let id: String; let identity_id: String; var state = "LINK_SENT"; let expire_time: String }
        let credential_binding_job: Job
        let credential_binding_link: String
    }

    func createBindingJob(_ request: Request) async -> Response {
        do { return try await createBindingJobChecked(request) } catch { return error.response }
    }

    private func createBindingJobChecked(_ request: Request) async throws(BIError) -> Response {
        guard let identityId = Self.pathSegment(request, after: Self.realmPath + "/identities/", before: "/credential-binding-jobs"),
              identityId.isIdentifier(upTo: 64), await store.identity(id: identityId) != nil else { throw .notFound("This identity") }
        let body = try await BIRequestBody.decode(JobBody.self, from: request)
        guard let job = body.job else { throw .invalidRequest("job is required.") }
        guard job.delivery_method == "RETURN" else {
            throw .invalidRequest("job.delivery_method must be RETURN: the devserver sends no email.")
        }
        if let uri = job.post_binding_redirect_uri, let reason = RedirectURI.registrationProblem(uri) {
            throw .invalidRequest("job.post_binding_redirect_uri: \(reason).")
        }
        let token = OpaqueSecret.make()
        let expiresAt = now.addingTimeInterval(configuration.bindingJobLifetime.timeInterval)
        let jobId: String
        do {
            jobId = try await store.addJob(BIBindingJob(identityId: identityId, tokenHash: OpaqueSecret.hash(token),
                                                        postBindingRedirectURI: job.post_binding_redirect_uri, expiresAt: expiresAt), now: now)
        } catch { throw .busy }
        let link = realmURL + "/credential-binding-jobs/\(jobId):invokeAuthenticator?" + PercentEncoding.query([("token", token)])
        return OAuthResponse.json(JobAnswer(
            credential_binding_job: .init(id: jobId, identity_id: identityId, expire_time: Timestamp.string(expiresAt)),
            credential_binding_link: link))
    }

    func invokeAuthenticator(_ request: Request) async -> Response {
        do { return try await invokeAuthenticatorChecked(request) } catch { return error.response }
    }

    private func invokeAuthenticatorChecked(_ request: Request) async throws(BIError) -> Response {
        guard let jobId = Self.pathSegment(request, after: Self.realmPath + "/credential-binding-jobs/", before: ":invokeAuthenticator"),
              jobId.isIdentifier(upTo: 64) else { throw .notFound("This binding job") }
        let fields: FormFields
        do { fields = try request.queryFields() } catch { throw .invalidRequest(OAuthError.from(error).description) }
        guard let token = fields["token"], token.utf8.count <= 256 else { throw .invalidRequest("token is required.") }
        let job = try await liveJob(jobId, identityId: nil, token: token)
        let bind = invokeURL("bind") + "?" + PercentEncoding.query([
            ("api_base_url", baseURL), ("tenant_id", Self.tenantId), ("realm_id", Self.realmId),
            ("identity_id", job.identityId), ("job_id", jobId), ("token", token),
        ])
        var headers = HTTPFields()
        headers[.location] = bind
        headers[.cacheControl] = "no-store"
        return Response(status: .found, headers: headers)
    }

    /// A job that can still bind, or the error that says why not.
    func liveJob(_ id: String, identityId: String?, token: String) async throws(BIError) -> BIBindingJob {
        switch await store.job(id, identityId: identityId, token: token, now: now) {
        case .unknown: throw .notFound("This binding job (or its token)")
        case .expired: throw BIError(code: "job_expired", description: "The binding link expired; ask for a new one.")
        case .complete: throw BIError(code: "job_used", description: "This binding job has already bound a passkey; ask for a new link.")
        case .job(let job): return job
        }
    }
}
