import BoundedJSON
import Reports
import Tokens
import URLPolicy

/// An IDX answer (okta-bi.md §3.2): the envelope's parts this client acts
/// on, read strictly — a member we use that has the wrong shape is an error
/// naming it, never a guess; members we do not use are ignored.
public struct IDXResponse: Sendable, Equatable {
    /// The transaction's handle, sent back in every form (a secret of the sign-in).
    public var stateHandle: String?
    public var expiresAt: String?
    public var remediations: [IDXRemediation]
    public var cancel: IDXRemediation?
    /// `successWithInteractionCode`: the form that ends IDX at the token endpoint.
    public var success: IDXRemediation?
    public var messages: [IDXMessage]
    /// `currentAuthenticator.value`: the authenticator being enrolled or challenged.
    public var currentAuthenticator: IDXAuthenticator?
    public var authenticators: [IDXAuthenticator]
    public var enrollments: [IDXAuthenticator]
    /// `user.value.identifier`, when the server says who is signing in.
    public var userIdentifier: String?

    /// Reads `bytes` received from `url` (shown in errors without its query).
    public static func parse(_ bytes: [UInt8], url: String) throws(IDXError) -> IDXResponse {
        let shown = Endpoint.shown(url)
        let json: JSONValue
        switch JSONValue.parse(bytes, within: .idxAnswer) {
        case .success(let value): json = value
        case .failure(let problem): throw .malformed(url: shown, reason: problem.description)
        }
        return try IDXResponse(json, url: shown)
    }

    init(_ json: JSONValue, url: String) throws(IDXError) {
        guard json.isObject else { throw .malformed(url: url, reason: "it is not a JSON object") }
        stateHandle = try Self.handle(json["stateHandle"], url: url)
        expiresAt = try IDXField.text(json["expiresAt"], "expiresAt", url: url)
        var remediations: [IDXRemediation] = []
        if let list = json["remediation"], list != .null {
            guard let values = list["value"]?.array else { throw .malformed(url: url, reason: "`remediation.value` is not a list") }
            guard values.count <= IDXRemediation.maximumCount else {
                throw .malformed(url: url, reason: "`remediation.value` has more than \(IDXRemediation.maximumCount) forms")
            }
            for (index, value) in values.enumerated() {
                remediations.append(try IDXRemediation(value, path: "remediation.value[\(index)]", url: url))
            }
        }
        self.remediations = remediations
        cancel = try json["cancel"].flatMap { $0 == .null ? nil : $0 }.map { (value) throws(IDXError) in
            try IDXRemediation(value, path: "cancel", url: url)
        }
        success = try json["successWithInteractionCode"].flatMap { $0 == .null ? nil : $0 }.map { (value) throws(IDXError) in
            try IDXRemediation(value, path: "successWithInteractionCode", url: url)
        }
        messages = try IDXMessage.list(json["messages"], path: "messages", url: url)
        currentAuthenticator = try json["currentAuthenticator"]?["value"].map { (value) throws(IDXError) in
            try IDXAuthenticator(value, path: "currentAuthenticator.value", url: url)
        }
        authenticators = try IDXAuthenticator.list(json["authenticators"], path: "authenticators", url: url)
        enrollments = try IDXAuthenticator.list(json["authenticatorEnrollments"], path: "authenticatorEnrollments", url: url)
        userIdentifier = try IDXField.text(json["user"]?["value"]?["identifier"], "user.value.identifier", url: url)
    }

    /// The remediation named `name`, if offered.
    public func remediation(_ name: String) -> IDXRemediation? {
        remediations.first { $0.name == name } ?? (name == "cancel" ? cancel : nil)
    }

    /// Okta's "The session has expired." (okta-bi.md §3.4).
    public var isSessionExpired: Bool {
        messages.contains { $0.key == "idx.session.expired" }
    }

    /// Every message of the answer: the top level's, then each field's, labelled.
    public var allMessages: [IDXMessage] {
        var all = messages
        func walk(_ fields: [IDXField]) {
            for field in fields {
                all += field.messages.map { IDXMessage(text: "\(field.label ?? field.name): \($0.text)", key: $0.key, severity: $0.severity) }
                walk(field.form ?? [])
            }
        }
        for remediation in remediations { walk(remediation.fields) }
        return all
    }

    private static func handle(_ json: JSONValue?, url: String) throws(IDXError) -> String? {
        guard let json, json != .null else { return nil }
        guard let text = json.string, (1...8192).contains(text.utf8.count),
              text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else {
            throw .malformed(url: url, reason: "`stateHandle` is not a handle")
        }
        return text
    }
}

/// An authenticator or an enrollment (`authenticators.value[]`,
/// `authenticatorEnrollments.value[]`, `currentAuthenticator.value`).
public struct IDXAuthenticator: Sendable, Equatable {
    public var id: String?
    /// `webauthn`, `okta_password`, `okta_email`, …: what to match on (okta-bi.md §3.3).
    public var key: String?
    public var type: String?
    public var displayName: String?
    public var methods: [String]
    /// The enrollment's credential id (webauthn), as sent.
    public var credentialId: String?
    /// `transports`, top level or in `profile`; an array or a JSON string of one.
    public var transports: [String]
    /// `contextualData` (activationData, challengeData), kept as JSON.
    public var contextualData: JSONValue?

    static let maximumCount = 64

    static func list(_ json: JSONValue?, path: String, url: String) throws(IDXError) -> [IDXAuthenticator] {
        guard let json, json != .null else { return [] }
        guard let values = json["value"]?.array else { throw .malformed(url: url, reason: "`\(path).value` is not a list") }
        guard values.count <= maximumCount else { throw .malformed(url: url, reason: "`\(path).value` has more than \(maximumCount) entries") }
        var list: [IDXAuthenticator] = []
        for (index, value) in values.enumerated() {
            list.append(try IDXAuthenticator(value, path: "\(path).value[\(index)]", url: url))
        }
        return list
    }

    init(_ json: JSONValue, path: String, url: String) throws(IDXError) {
        guard json.isObject else { throw .malformed(url: url, reason: "`\(path)` is not an object") }
        id = try IDXField.text(json["id"], "\(path).id", url: url)
        key = try IDXField.text(json["key"], "\(path).key", url: url)
        type = try IDXField.text(json["type"], "\(path).type", url: url)
        displayName = try IDXField.text(json["displayName"], "\(path).displayName", url: url)
        methods = (json["methods"]?.array ?? []).prefix(16).compactMap { $0["type"]?.string }
        if let credential = json["credentialId"], credential != .null {
            guard let text = credential.string, (1...1024).contains(text.utf8.count) else {
                throw .malformed(url: url, reason: "`\(path).credentialId` is not a credential id")
            }
            credentialId = text
        }
        transports = Self.transports(json["transports"] ?? json["profile"]?["transports"])
        contextualData = json["contextualData"]
    }

    /// An array of strings, or a JSON string holding one (okta-bi.md §3.3).
    private static func transports(_ json: JSONValue?) -> [String] {
        switch json {
        case .array(let values)?:
            return values.prefix(8).compactMap(\.string)
        case .string(let text)?:
            guard case .success(.array(let values)) = JSONValue.parse(Array(text.utf8), within: .idxAnswer) else { return [] }
            return values.prefix(8).compactMap(\.string)
        default:
            return []
        }
    }

    public var isWebAuthn: Bool { key == "webauthn" }
}
