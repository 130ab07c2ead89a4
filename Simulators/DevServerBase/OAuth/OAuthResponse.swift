import FoundationEssentials
import HTTPTypes
import Hummingbird
import URLPolicy

/// An RFC 6749 §5.2 error: `{"error","error_description"}`.
package struct OAuthError: Error, Sendable {
    var error: String
    package var description: String
    var status: HTTPResponse.Status = .badRequest

    package init(error: String, description: String, status: HTTPResponse.Status = .badRequest) {
        self.error = error
        self.description = description
        self.status = status
    }

    package static func invalidRequest(_ description: String) -> OAuthError { OAuthError(error: "invalid_request", description: description) }
    package static func invalidClient(_ description: String) -> OAuthError {
        OAuthError(error: "invalid_client", description: description, status: .unauthorized)
    }
    package static func invalidGrant(_ description: String) -> OAuthError { OAuthError(error: "invalid_grant", description: description) }
    package static func invalidScope(_ description: String) -> OAuthError { OAuthError(error: "invalid_scope", description: description) }
    package static let busy = OAuthError(error: "temporarily_unavailable", description: "The devserver holds too many grants; try again later.",
                                 status: .serviceUnavailable)

    package static let serverError = OAuthError(error: "server_error", description: "The request could not be completed.",
                                        status: .internalServerError)

    package static func from(_ problem: FormFields.Problem) -> OAuthError {
        switch problem {
        case .tooLarge: return .invalidRequest("The request is larger than \(FormFields.maxSize) bytes or has too many parameters.")
        case .repeated(let name): return .invalidRequest("The parameter \(name.prefix(64)) appears more than once (RFC 6749 §3.1).")
        case .malformed: return .invalidRequest("The request is not valid application/x-www-form-urlencoded UTF-8.")
        }
    }
}

/// Writes the server's answers: JSON never cached, HTML pages, redirects.
package enum OAuthResponse {
    /// How long clients may cache discovery and the JWKS, as Okta lets them.
    /// A restart without --data-dir makes new keys; clients that refetch the
    /// JWKS on an unknown `kid` (OIDC Core §10.1.1) pick them up.
    package static let metadataMaxAge = 300

    /// JSON that must not be cached (RFC 6749 §5.1), or, with `maxAge`, may be for that long.
    package static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, maxAge: Int? = nil) -> Response {
        guard let data = try? JSONResponse.encoder().encode(value) else { return Response(status: .internalServerError) }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let maxAge {
            headers[.cacheControl] = "public, max-age=\(maxAge)"
        } else {
            headers[.cacheControl] = "no-store"
            headers[.pragmaField] = "no-cache"
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    package static func error(_ error: OAuthError) -> Response {
        json(["error": error.error, "error_description": error.description], status: error.status)
    }

    package static func html(_ page: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
        headers[.xFrameOptions] = "DENY"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// 302 to `uri` with `items` added to its query.
    package static func redirect(to uri: String, _ items: [(String, String)]) -> Response {
        let separator = uri.contains("?") ? "&" : "?"
        var headers = HTTPFields()
        headers[.location] = uri + separator + PercentEncoding.query(items)
        headers[.cacheControl] = "no-store"
        return Response(status: .found, headers: headers)
    }
}

extension HTTPField.Name {
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    package static let pragmaField = HTTPField.Name("Pragma")!
}

extension Request {
    /// The body as form fields, refused unless it is
    /// `application/x-www-form-urlencoded` and within `FormFields.maxSize`.
    package func formFields() async throws(OAuthError) -> FormFields {
        let type = headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/x-www-form-urlencoded" else {
            throw .invalidRequest("Send the parameters as application/x-www-form-urlencoded.")
        }
        let buffer: ByteBuffer
        do { buffer = try await body.collect(upTo: FormFields.maxSize) } catch {
            throw .from(.tooLarge)
        }
        do { return try FormFields(parsing: Array(buffer.readableBytesView)) } catch { throw .from(error) }
    }

    /// The query string as form fields.
    package func queryFields() throws(FormFields.Problem) -> FormFields {
        try FormFields(parsing: Substring(uri.query ?? ""))
    }
}
