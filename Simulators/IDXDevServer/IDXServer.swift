import DevServerBase
import FoundationEssentials
import HTTPTypes
import Hummingbird
import NIOCore
import OAuthDevServer
import WebAuthn

/// The Okta Identity Engine (IDX) subset's shared parts: the authorization
/// server it completes, its users and transactions, its settings. Each
/// endpoint is an extension in its own file. Shapes follow Okta's public
/// SDK mocks (docs/reference/okta-bi.md §3).
package struct IDXServer: Sendable {
    package static let basePath = "/idp/idx"

    /// The two authenticators this org offers, with fixed Okta-shaped ids.
    static let securityKey = ION.Authenticator(type: "security_key", key: "webauthn", id: "aut1webauthn0devsrvr",
                                               displayName: "Security Key or Biometric", methods: [.init(type: "webauthn")])
    static let password = ION.Authenticator(type: "password", key: "okta_password", id: "aut1password0devsrvr",
                                            displayName: "Password", methods: [.init(type: "password")])
    /// ES256 and RS256, as Okta's activation data offers.
    static let algorithms = [COSEAlgorithm.es256.rawValue, COSEAlgorithm.rs256.rawValue]

    let oauth: OAuthServer
    let store: IDXStore
    package let configuration: IDXConfiguration

    package init(oauth: OAuthServer, store: IDXStore, configuration: IDXConfiguration) {
        self.oauth = oauth
        self.store = store
        self.configuration = configuration
    }

    var now: Date { oauth.now }
    var stateLifetime: TimeInterval { configuration.stateLifetime.timeInterval }
    /// `http://127.0.0.1:PORT`: IDX endpoints live at the org root, as Okta's do.
    var origin: String { oauth.origin }

    /// The configured RP ID, or the issuer's host.
    var rpId: String { configuration.rpId ?? Self.host(ofOrigin: origin) }

    /// The origins `clientDataJSON.origin` may name: the issuer's origin (a
    /// browser on the org's own pages, and what a native client of this org
    /// says) and the configured ones.
    var allowedOrigins: [String] { [origin] + configuration.origins }

    /// The host of `scheme://host[:port]`, without brackets for IPv6.
    static func host(ofOrigin origin: String) -> String {
        guard let schemeEnd = origin.range(of: "://") else { return origin }
        let authority = origin[schemeEnd.upperBound...]
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? authority)
    }

    func url(_ path: String) -> String { origin + Self.basePath + path }

    // MARK: Answers

    /// An ION answer, never cached.
    static func ion(_ body: ION.Response, status: HTTPResponse.Status = .ok) -> Response {
        guard let data = try? JSONResponse.encoder().encode(body) else { return Response(status: .internalServerError) }
        var headers = HTTPFields()
        headers[.contentType] = ION.contentType
        headers[.cacheControl] = "no-store"
        headers[.pragmaField] = "no-cache"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Turns an error into its ION answer: the transaction's current state
    /// with the message at the top or on its field, or for a dead
    /// stateHandle only the message, as Okta answers.
    func answer(_ error: IDXRefusal) async -> Response {
        switch error.place {
        case .session:
            return Self.ion(ION.Response(messages: .init([error.message])), status: error.status)
        case .topLevel(nil):
            return Self.ion(ION.Response(messages: .init([error.message])), status: error.status)
        case .topLevel(let transaction?):
            var body = await render(transaction)
            body.messages = .init([error.message])
            return Self.ion(body, status: error.status)
        case .field(let transaction, let path):
            var body = await render(transaction)
            let remediations = body.remediation?.value ?? []
            if remediations.contains(where: { $0.value.contains { $0.has(path: path[...]) } }) {
                body.remediation = .init(remediations.map { $0.attaching(error.message, at: path) })
            } else {
                // No form of this state has the field: the message must not be lost.
                body.messages = .init([error.message])
            }
            return Self.ion(body, status: error.status)
        }
    }

    // MARK: Requests

    /// The body of an IDX POST: JSON (`application/json` or
    /// `application/ion+json`, as the SDKs send), at most 64 KiB.
    func body(of request: Request) async throws(IDXRefusal) -> IDXWire.Body {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" || type == "application/ion+json" else {
            throw .badRequest("Send the body as application/json or application/ion+json.")
        }
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: IDXWire.maxBodySize) } catch {
            throw .badRequest("The body is larger than \(IDXWire.maxBodySize) bytes.")
        }
        do { return try IDXWire.parseBody(Array(buffer.readableBytesView)) } catch {
            switch error {
            case .tooLarge: throw .badRequest("The body is larger than \(IDXWire.maxBodySize) bytes.")
            case .malformed(let why): throw .badRequest(why)
            }
        }
    }

    /// The live transaction a body's stateHandle names.
    func transaction(_ body: IDXWire.Body) async throws(IDXRefusal) -> IDXTransactionRecord {
        guard let handle = body.stateHandle else { throw .badRequest("stateHandle is required.") }
        switch await store.transaction(stateHandle: handle, now: now) {
        case .unknown, .expired: throw .sessionExpired
        case .found(let transaction): return transaction
        }
    }
}

extension ION.Remediation {
    /// This remediation with `message` on the field at `path` (dotted names
    /// into nested forms), when it has that field.
    func attaching(_ message: ION.Message, at path: [String]) -> ION.Remediation {
        var copy = self
        copy.value = value.map { $0.attaching(message, at: path[...]) }
        return copy
    }
}

extension ION.Field {
    /// Whether the dotted `path` names this field or one in its nested form.
    func has(path: ArraySlice<String>) -> Bool {
        guard path.first == name else { return false }
        return path.count == 1 || (form?.value.contains { $0.has(path: path.dropFirst()) } ?? false)
    }

    func attaching(_ message: ION.Message, at path: ArraySlice<String>) -> ION.Field {
        guard path.first == name else { return self }
        var copy = self
        if path.count == 1 {
            copy.messages = .init((messages?.value ?? []) + [message])
        } else if let form {
            copy.form = ION.Form(value: form.value.map { $0.attaching(message, at: path.dropFirst()) })
        }
        return copy
    }
}
