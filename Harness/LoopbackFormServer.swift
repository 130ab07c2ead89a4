/// A form-POST endpoint on 127.0.0.1 (an ephemeral port) answering JSON:
/// the token endpoints the tests and passkey-bench refresh against. It is
/// `LoopbackHTTPServer` seen from the grant's side — the request's form
/// fields in, a status and a JSON body out (no-store, `Connection: close`).
public final class LoopbackFormServer: Sendable {
    /// What a request gets: an HTTP status line's code and text, and a JSON body.
    public typealias Answer = (status: String, body: String)

    private let server: LoopbackHTTPServer

    public var port: UInt16 { server.port }

    /// Listens at once; `answer` gets each request's form fields (percent-decoded).
    public init(answer: @escaping @Sendable (_ form: [String: String]) -> Answer) throws(HarnessError) {
        server = try LoopbackHTTPServer { request in
            let (status, body) = answer(request.form)
            return .json(body, status: status, headers: [("Cache-Control", "no-store")])
        }
    }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> String { server.url(path) }

    /// Stops accepting and waits for the accept loop to end (requests being answered finish on their own).
    public func stop() { server.stop() }
}
