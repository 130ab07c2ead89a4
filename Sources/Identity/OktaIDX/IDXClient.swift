import BoundedJSON
import FoundationEssentials
import HTTPTransport
import OpenID
import Tokens
import URLPolicy

/// The IDX calls of one app at one Okta authorization server (okta-bi.md
/// §3.1): interact, introspect, a remediation form, and the
/// `interaction_code` grant at the end (through OpenID's client, so the
/// token set is read by the same parser as every login's). Every IDX call
/// carries the issuer's origin as `Origin`; forms go only to that origin.
public struct IDXClient: Sendable {
    public let endpoints: IDXEndpoints
    private let transport: HTTPTransport
    private let metadata: ProviderMetadata
    private let clientId: String
    private let clientSecret: String?

    public init(transport: HTTPTransport, metadata: ProviderMetadata, clientId: String, clientSecret: String? = nil) throws(IDXError) {
        self.transport = transport
        self.metadata = metadata
        self.clientId = clientId
        self.clientSecret = clientSecret
        endpoints = try IDXEndpoints(metadata: metadata)
    }

    /// `POST /v1/interact` with a fresh PKCE pair (S256), state and nonce.
    public func interact(scopes: [String], redirectURI: String) async throws(IDXError) -> IDXTransaction {
        let pkce = PKCE()
        let state = PKCE().verifier
        let nonce = PKCE().verifier
        var fields = [("client_id", clientId), ("scope", scopes.joined(separator: " ")), ("redirect_uri", redirectURI),
                      ("code_challenge", pkce.challenge), ("code_challenge_method", pkce.method), ("state", state), ("nonce", nonce)]
        if let clientSecret { fields.append(("client_secret", clientSecret)) }
        let answer: HTTPTransport.Response
        do {
            answer = try await transport.postForm(endpoints.interact, fields, headers: [("Origin", endpoints.origin)])
        } catch {
            throw .network(error)
        }
        guard (200..<300).contains(answer.status) else {
            let error = TokenEndpointAnswer.error(in: answer.body)
            throw .interactRefused(status: answer.status, errorCode: error.code, description: error.description)
        }
        guard case .success(let json) = JSONValue.parse(answer.body, within: .idxAnswer), let handle = json["interaction_handle"]?.string,
              (1...4096).contains(handle.utf8.count), handle.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else {
            throw .malformed(url: Endpoint.shown(endpoints.interact), reason: "`interaction_handle` is missing")
        }
        return IDXTransaction(pkce: pkce, state: state, nonce: nonce, interactionHandle: handle)
    }

    /// `POST /idp/idx/introspect` with the interaction handle: the first form.
    public func introspect(_ transaction: IDXTransaction) async throws(IDXError) -> IDXResponse {
        try await send(endpoints.introspect, body: .object(["interactionHandle": .string(transaction.interactionHandle)]))
    }

    /// Sends `remediation` filled with `values` (dotted paths) and the state handle.
    public func proceed(_ remediation: IDXRemediation, values: [String: String], stateHandle: String?) async throws(IDXError) -> IDXResponse {
        guard remediation.method == "POST" else {
            throw .noRemediation("the `\(remediation.name)` step is a \(remediation.method) link, not a form to send")
        }
        guard endpoints.isOnOrigin(remediation.href) else { throw .foreignHref(remediation.href) }
        return try await send(remediation.href, body: try remediation.body(values: values, stateHandle: stateHandle))
    }

    /// The `interaction_code` grant with the transaction's verifier. The ID
    /// token is not validated here (the caller checks it with the interact nonce).
    public func exchange(_ success: IDXRemediation, transaction: IDXTransaction) async throws(IDXError) -> TokenSet {
        guard let code = success.field("interaction_code")?.value?.string, (1...4096).contains(code.utf8.count) else {
            throw .malformed(url: "successWithInteractionCode", reason: "`interaction_code` is missing")
        }
        let client = OpenIDClient(transport: transport, metadata: metadata, clientId: clientId, clientSecret: clientSecret)
        do {
            return try await client.exchange(interactionCode: code, pkce: transaction.pkce)
        } catch {
            throw .token(error)
        }
    }

    /// An IDX call: JSON in, ION out. 2xx-4xx with an ION body is an answer
    /// (its messages say what went wrong); anything else is an error.
    private func send(_ url: String, body: JSONValue) async throws(IDXError) -> IDXResponse {
        let answer: HTTPTransport.Response
        do {
            answer = try await transport.send("POST", url, headers: [
                ("Content-Type", IDXMediaType.json), ("Accept", IDXMediaType.ion), ("Origin", endpoints.origin),
            ], body: body.encoded)
        } catch {
            throw .network(error)
        }
        let shown = Endpoint.shown(url)
        guard (200..<500).contains(answer.status) else {
            let error = TokenEndpointAnswer.error(in: answer.body)
            throw .server(url: shown, status: answer.status, errorCode: error.code, description: error.description)
        }
        do {
            return try IDXResponse.parse(answer.body, url: url)
        } catch {
            guard (200..<300).contains(answer.status) else {
                let error = TokenEndpointAnswer.error(in: answer.body)
                throw .server(url: shown, status: answer.status, errorCode: error.code, description: error.description)
            }
            throw error
        }
    }
}
