import Base64
import DevServerBase
import FoundationEssentials
import Hexadecimal
import WebAuthn

/// A transaction's state as an ION answer: the remediations its step offers,
/// with the authenticators, enrollments, user, app and cancel around them,
/// shaped as in Okta's SDK mocks.
extension IDXServer {
    func render(_ transaction: IDXTransactionRecord) async -> ION.Response {
        let handle = transaction.stateHandle
        var user: IDXUser?
        if let id = transaction.step.userId { user = await store.user(id: id) }
        var body = ION.Response(stateHandle: handle, expiresAt: Timestamp.string(transaction.expiresAt), intent: "LOGIN")
        body.cancel = remediation("cancel", "/cancel", [.stateHandle(handle)])
        body.app = .init(ION.App(name: "oidc_client", label: transaction.interaction.clientId, id: transaction.interaction.clientId))
        body.authentication = .init(authentication(transaction.interaction))
        if let user {
            body.user = .init(ION.User(id: user.id, identifier: user.username))
            body.authenticatorEnrollments = .init(enrollments(of: user))
        }
        switch transaction.step {
        case .identify:
            body.remediation = .init([identifyForm(handle)])
        case .password:
            body.remediation = .init([answerForm("challenge-authenticator", relatesTo: "$.currentAuthenticatorEnrollment", handle, [
                ION.Field(name: "passcode", label: "Password", required: true, secret: true),
            ])])
            if let user, let id = user.passwordEnrollmentId {
                var enrollment = Self.password
                enrollment.id = id
                body.currentAuthenticatorEnrollment = .init(enrollment)
            }
            body.authenticators = .init([Self.password])
        case .selectAuthenticate:
            let offered = user.map(authenticateOptions) ?? []
            body.remediation = .init([selectForm("select-authenticator-authenticate", "/challenge", offered, handle)])
            body.authenticators = .init(offered)
        case .webauthnChallenge(_, let challenge):
            let offered = user.map(authenticateOptions) ?? []
            body.remediation = .init([
                answerForm("challenge-authenticator", relatesTo: "$.currentAuthenticator", handle, [
                    ION.Field(name: "authenticatorData", label: "Authenticator Data", required: true, visible: false),
                    ION.Field(name: "clientData", label: "Client Data", required: true, visible: false),
                    ION.Field(name: "signatureData", label: "Signature Data", required: true, visible: false),
                ]),
                selectForm("select-authenticator-authenticate", "/challenge", offered, handle),
            ])
            var current = Self.securityKey
            current.contextualData = ION.ContextualData(challengeData: ION.ChallengeData(
                challenge: Base64URL.encode(challenge), userVerification: configuration.userVerificationRequired ? "required" : "preferred",
                extensions: .init(appid: origin), rpId: configuration.rpId))
            body.currentAuthenticator = .init(current)
            body.authenticators = .init(offered)
        case .selectEnroll:
            body.remediation = .init([selectForm("select-authenticator-enroll", "/credential/enroll", [Self.securityKey], handle)])
            body.authenticators = .init([Self.securityKey])
        case .webauthnEnroll(_, let challenge):
            body.remediation = .init([
                answerForm("enroll-authenticator", relatesTo: "$.currentAuthenticator", handle, [
                    ION.Field(name: "attestation", label: "Attestation", required: true, visible: false),
                    ION.Field(name: "clientData", label: "Client Data", required: true, visible: false),
                ]),
                selectForm("select-authenticator-enroll", "/credential/enroll", [Self.securityKey], handle),
            ])
            var current = Self.securityKey
            if let user { current.contextualData = ION.ContextualData(activationData: activationData(user, challenge: challenge)) }
            body.currentAuthenticator = .init(current)
            body.enrollmentAuthenticator = .init(Self.securityKey)
            body.authenticators = .init([Self.securityKey])
        case .success(_, let code):
            body.successWithInteractionCode = ION.Remediation(
                name: "issue", href: oauth.issuer + "/v1/token", produces: nil, value: [
                    ION.Field(name: "grant_type", label: "Grant Type", required: true, value: "interaction_code"),
                    ION.Field(name: "interaction_code", label: "Interaction Code", required: true, value: code),
                    ION.Field(name: "client_id", label: "Client Id", required: true, value: transaction.interaction.clientId),
                ], accepts: "application/x-www-form-urlencoded")
        }
        return body
    }

    /// The authenticators a user can sign in with: the security key when one
    /// is enrolled, the password when there is one.
    func authenticateOptions(_ user: IDXUser) -> [ION.Authenticator] {
        (user.enrollments.isEmpty ? [] : [Self.securityKey]) + (user.passwordHash == nil ? [] : [Self.password])
    }

    /// The user's enrollments: the password, then each security key with its
    /// credential id (base64url) and AAGUID.
    func enrollments(of user: IDXUser) -> [ION.Authenticator] {
        var list: [ION.Authenticator] = []
        if let id = user.passwordEnrollmentId {
            var password = Self.password
            password.id = id
            list.append(password)
        }
        for enrollment in user.enrollments {
            var key = Self.securityKey
            key.id = enrollment.id
            key.credentialId = Base64URL.encode(enrollment.credentialId)
            key.profile = ION.Profile(aaguid: Self.uuidText(enrollment.aaguid))
            list.append(key)
        }
        return list
    }

    func activationData(_ user: IDXUser, challenge: [UInt8]) -> ION.ActivationData {
        ION.ActivationData(
            rp: .init(name: "passkey-devserver", id: configuration.rpId),
            user: .init(displayName: user.username, name: user.username, id: user.id),
            pubKeyCredParams: Self.algorithms.map { ION.ActivationData.Parameter(alg: $0) },
            challenge: Base64URL.encode(challenge),
            authenticatorSelection: .init(userVerification: configuration.userVerificationRequired ? "required" : "preferred", requireResidentKey: false),
            u2fParams: .init(appid: origin),
            excludeCredentials: user.enrollments.map { .init(id: Base64URL.encode($0.credentialId)) })
    }

    // MARK: Forms

    func remediation(_ name: String, _ path: String, _ fields: [ION.Field], relatesTo: String? = nil) -> ION.Remediation {
        ION.Remediation(name: name, relatesTo: relatesTo.map { [$0] }, href: url(path), value: fields)
    }

    func identifyForm(_ handle: String) -> ION.Remediation {
        remediation("identify", "/identify", [
            ION.Field(name: "identifier", label: "Username", required: true),
            ION.Field(name: "rememberMe", label: "Remember this device", type: "boolean"),
            .stateHandle(handle),
        ])
    }

    /// A `credentials` object form posted to /challenge/answer.
    func answerForm(_ name: String, relatesTo: String, _ handle: String, _ credentials: [ION.Field]) -> ION.Remediation {
        remediation(name, "/challenge/answer", [
            ION.Field(name: "credentials", type: "object", required: true, form: ION.Form(value: credentials)),
            .stateHandle(handle),
        ], relatesTo: relatesTo)
    }

    /// An `authenticator` object field whose options are the authenticators'
    /// id + methodType forms, each related to its place in `authenticators`.
    func selectForm(_ name: String, _ path: String, _ authenticators: [ION.Authenticator], _ handle: String) -> ION.Remediation {
        let options = authenticators.enumerated().map { index, authenticator in
            ION.Option(label: authenticator.displayName, value: ION.OptionValue(form: ION.Form(value: [
                ION.Field(name: "id", required: true, mutable: false, value: authenticator.id),
                ION.Field(name: "methodType", required: false, mutable: false, value: authenticator.methods[0].type),
            ])), relatesTo: "$.authenticators.value[\(index)]")
        }
        return remediation(name, path, [ION.Field(name: "authenticator", type: "object", options: options), .stateHandle(handle)])
    }

    func authentication(_ interaction: IDXInteraction) -> ION.Authentication {
        ION.Authentication(
            issuer: .init(id: "ausdefault", name: "default", uri: oauth.issuer),
            request: .init(scope: interaction.scopes.joined(separator: " "), redirect_uri: interaction.redirectURI,
                           state: interaction.state, nonce: interaction.nonce, code_challenge: interaction.codeChallenge))
    }

    /// 16 bytes as a lowercase UUID (8-4-4-4-12).
    static func uuidText(_ bytes: [UInt8]) -> String {
        let hex = Hexadecimal.encode(bytes).lowercased()
        guard hex.count == 32 else { return hex }
        var out = ""
        for (index, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { out += "-" }
            out.append(character)
        }
        return out
    }
}
