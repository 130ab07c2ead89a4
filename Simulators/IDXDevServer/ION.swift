/// The IDX answer's ION shapes (okta-version 1.0.0), as Okta's public SDK
/// mocks show them (docs/reference/okta-bi.md §3.2): a response envelope
/// of optional members, remediation forms of field descriptions, options
/// with `relatesTo`, nested forms, and messages. Encoded with nil members left out.
enum ION {
    static let contentType = "application/ion+json; okta-version=1.0.0"
    static let accepts = "application/json; okta-version=1.0.0"

    struct Response: Encodable, Sendable {
        var version = "1.0.0"
        var stateHandle: String?
        var expiresAt: String?
        var intent: String?
        var remediation: Collection<Remediation>?
        var currentAuthenticator: Object<Authenticator>?
        var currentAuthenticatorEnrollment: Object<Authenticator>?
        var authenticators: Collection<Authenticator>?
        var authenticatorEnrollments: Collection<Authenticator>?
        var enrollmentAuthenticator: Object<Authenticator>?
        var user: Object<User>?
        var app: Object<App>?
        var authentication: Object<Authentication>?
        var cancel: Remediation?
        var messages: Collection<Message>?
        var successWithInteractionCode: Remediation?
    }

    struct Collection<Value: Encodable & Sendable>: Encodable, Sendable {
        var type = "array"
        var value: [Value]
        init(_ value: [Value]) { self.value = value }
    }

    struct Object<Value: Encodable & Sendable>: Encodable, Sendable {
        var type = "object"
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    struct Remediation: Encodable, Sendable {
        var rel = ["create-form"]
        var name: String
        var relatesTo: [String]?
        var href: String
        var method = "POST"
        var produces: String? = ION.contentType
        var value: [Field]
        var accepts = ION.accepts
    }

    struct Field: Encodable, Sendable {
        var name: String
        var label: String?
        var type: String?
        var required: Bool?
        var visible: Bool?
        var mutable: Bool?
        var secret: Bool?
        var value: String?
        var form: Form?
        var options: [Option]?
        var messages: Collection<Message>?

        /// The hidden, immutable stateHandle every form carries.
        static func stateHandle(_ handle: String) -> Field {
            Field(name: "stateHandle", required: true, visible: false, mutable: false, value: handle)
        }
    }

    struct Form: Encodable, Sendable {
        var value: [Field]
    }

    struct Option: Encodable, Sendable {
        var label: String
        var value: OptionValue
        var relatesTo: String?
    }

    /// An option's value: a nested form for an `object` field.
    struct OptionValue: Encodable, Sendable {
        var form: Form
    }

    struct Message: Encodable, Sendable {
        struct I18n: Encodable, Sendable { var key: String }
        var message: String
        var i18n: I18n
        var `class` = "ERROR"

        init(_ message: String, key: String) {
            self.message = message
            self.i18n = I18n(key: key)
        }
    }

    struct Method: Encodable, Sendable { var type: String }

    /// An authenticator or an authenticator enrollment.
    struct Authenticator: Encodable, Sendable {
        var type: String
        var key: String
        var id: String
        var displayName: String
        var methods: [Method]
        var credentialId: String?
        var profile: Profile?
        var contextualData: ContextualData?
        var allowedFor: String?
    }

    struct Profile: Encodable, Sendable { var aaguid: String }

    struct ContextualData: Encodable, Sendable {
        var activationData: ActivationData?
        var challengeData: ChallengeData?
    }

    /// `navigator.credentials.create()` options as Okta sends them.
    struct ActivationData: Encodable, Sendable {
        struct RP: Encodable, Sendable { var name: String; var id: String? }
        struct User: Encodable, Sendable { var displayName: String; var name: String; var id: String }
        struct Parameter: Encodable, Sendable { var type = "public-key"; var alg: Int }
        struct Selection: Encodable, Sendable { var userVerification: String; var requireResidentKey: Bool }
        struct U2F: Encodable, Sendable { var appid: String }
        struct Descriptor: Encodable, Sendable { var type = "public-key"; var id: String }
        struct Extensions: Encodable, Sendable { var credProps = true }
        var rp: RP
        var user: User
        var pubKeyCredParams: [Parameter]
        var challenge: String
        var attestation = "direct"
        var authenticatorSelection: Selection
        var u2fParams: U2F
        var excludeCredentials: [Descriptor]
        var extensions = Extensions()
    }

    /// `navigator.credentials.get()` options as Okta sends them; the allowed
    /// credentials are in `authenticatorEnrollments`.
    struct ChallengeData: Encodable, Sendable {
        struct Extensions: Encodable, Sendable { var appid: String }
        var challenge: String
        var userVerification: String
        var extensions: Extensions
        var rpId: String?
    }

    struct User: Encodable, Sendable {
        var id: String
        var identifier: String?
    }

    struct App: Encodable, Sendable {
        var name: String
        var label: String
        var id: String
    }

    struct Authentication: Encodable, Sendable {
        struct Issuer: Encodable, Sendable { var id: String; var name: String; var uri: String }
        struct Request: Encodable, Sendable {
            var scope: String
            var response_type = "code"
            var redirect_uri: String
            var state: String
            var code_challenge_method = "S256"
            var nonce: String?
            var code_challenge: String
            var response_mode = "query"
        }
        var `protocol` = "OAUTH2.0"
        var issuer: Issuer
        var request: Request
    }
}
