import NIOCore
import NIOHTTP1

/// The loopback listener's pages. Fixed text: nothing of the request is
/// echoed (no code, no state, no error description a hostile page could
/// have written), except the provider's error code when it is one of the
/// codes the specifications define.
enum CallbackPage: Equatable {
    case success
    case refused(String)
    case badRequest

    /// RFC 6749 §4.1.2.1 and OIDC Core §3.1.2.6: the codes a refusal page may name.
    static let knownErrorCodes: Set<String> = [
        "invalid_request", "unauthorized_client", "access_denied", "unsupported_response_type", "invalid_scope",
        "server_error", "temporarily_unavailable", "interaction_required", "login_required", "account_selection_required",
        "consent_required", "invalid_request_uri", "invalid_request_object", "request_not_supported",
        "request_uri_not_supported", "registration_not_supported",
    ]

    var status: HTTPResponseStatus { self == .badRequest ? .badRequest : .ok }

    var html: String {
        switch self {
        case .success:
            return Self.page("Signed in", "The login is complete. You can close this tab and return to the terminal.")
        case .refused(let code):
            let named = Self.knownErrorCodes.contains(code) ? code : "an unknown error"
            return Self.page("Login refused", "The provider refused the login: \(named). The terminal says what to do next.")
        case .badRequest:
            return Self.page("Bad request", "This is not the callback of the login in progress.")
        }
    }

    private static func page(_ title: String, _ text: String) -> String {
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>\(title)</title></head>"
            + "<body><h1>\(title)</h1><p>\(text)</p></body></html>\n"
    }
}

/// One connection's requests: each judged by the inbox, answered with its
/// page, and the connection closed (no keep-alive: nothing to share).
final class CallbackHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let inbox: CallbackInbox
    private var head: HTTPRequestHead?
    private var answered = false

    init(inbox: CallbackInbox) { self.inbox = inbox }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break  // a GET has none worth reading; the deadline bounds a sender that never stops
        case .end:
            guard let head, !answered else { return }
            answered = true
            inbox.requestArrived(on: context.channel)
            let page = inbox.judge(head, port: context.channel.localAddress?.port)
            respond(context: context, page: page)
        }
    }

    private func respond(context: ChannelHandlerContext, page: CallbackPage) {
        let body = Array(page.html.utf8)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        // The callback URL carries the code: no referrer, no scripts, no framing.
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Content-Security-Policy", value: "default-src 'none'; frame-ancestors 'none'")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        let head = HTTPResponseHead(version: .http1_1, status: page.status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let inbox = self.inbox
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(promise: nil)
            if page != .badRequest { inbox.finished() }
        }
    }
}
