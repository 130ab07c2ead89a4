import DecodingErrors
import FoundationEssentials
import HTTPTransport
import WebAuthn

/// The public half of the passwordless.dev API (header `ApiKey`), as the
/// iOS SDK calls it: `/register/begin`, `/register/complete`,
/// `/signin/begin`, `/signin/complete`.
public struct PasswordlessAPI: Sendable {
    public let settings: PasswordlessSettings
    let transport: HTTPTransport

    public init(settings: PasswordlessSettings, transport: HTTPTransport) {
        self.settings = settings
        self.transport = transport
    }

    public struct Begun<Options: Decodable & Sendable>: Sendable, Decodable {
        public var data: Options
        public var session: String
    }

    struct TokenAnswer: Decodable { var token: String }

    public func registerBegin(token: String) async throws(PasswordlessError) -> Begun<PublicKeyCredentialCreationOptionsJSON> {
        try await post("/register/begin", RegisterBegin(token: token, RPID: settings.rpId, Origin: settings.origin))
    }

    public func registerComplete(session: String, response: RegistrationResponseJSON,
                                 nickname: String?) async throws(PasswordlessError) -> String {
        let answer: TokenAnswer = try await post("/register/complete", RegisterComplete(
            session: session, response: response, nickname: nickname, RPID: settings.rpId, Origin: settings.origin))
        return answer.token
    }

    public func signinBegin(alias: String?, userId: String?) async throws(PasswordlessError) -> Begun<PublicKeyCredentialRequestOptionsJSON> {
        try await post("/signin/begin", SigninBegin(alias: alias, userId: userId, RPID: settings.rpId, Origin: settings.origin))
    }

    public func signinComplete(session: String, response: AuthenticationResponseJSON) async throws(PasswordlessError) -> String {
        let answer: TokenAnswer = try await post("/signin/complete", SigninComplete(
            session: session, response: response, RPID: settings.rpId, Origin: settings.origin))
        return answer.token
    }

    // The request bodies, with the field names the hosted API binds.
    struct RegisterBegin: Encodable { var token: String; var RPID: String; var Origin: String }
    struct RegisterComplete: Encodable {
        var session: String
        var response: RegistrationResponseJSON
        var nickname: String?
        var RPID: String
        var Origin: String
    }
    struct SigninBegin: Encodable { var alias: String?; var userId: String?; var RPID: String; var Origin: String }
    struct SigninComplete: Encodable {
        var session: String
        var response: AuthenticationResponseJSON
        var RPID: String
        var Origin: String
    }

    func post<Body: Encodable, Answer: Decodable>(_ path: String, _ body: Body) async throws(PasswordlessError) -> Answer {
        try await PasswordlessHTTP.post(transport, url: settings.apiURL + path, body: body,
                                        headers: [("ApiKey", settings.apiKey)])
    }
}

/// One JSON exchange with a passwordless.dev server: problem details become
/// `PasswordlessError.server`, transport failures `.transport`.
enum PasswordlessHTTP {
    static func post<Body: Encodable, Answer: Decodable>(_ transport: HTTPTransport, url: String, body: Body,
                                                         headers: [(String, String)]) async throws(PasswordlessError) -> Answer {
        let response: HTTPTransport.Response
        do {
            response = try await transport.postJSON(url, body, headers: headers)
        } catch let error as HTTPTransportError {
            throw .transport(error)
        } catch {
            throw .malformedResponse(url: url, reason: "the request could not be encoded")
        }
        guard (200..<300).contains(response.status) else {
            if var problem = try? JSONDecoder().decode(ProblemDetails.self, from: Data(response.body)) {
                problem.status = response.status
                throw .server(problem)
            }
            throw .server(ProblemDetails(type: nil, title: nil, status: response.status, errorCode: nil, detail: nil))
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: Data(response.body))
        } catch {
            throw .malformedResponse(url: url, reason: "\(Answer.self) does not decode (\(DecodingErrorText.describe(error)))")
        }
    }
}
