import Reports

/// What to do with an IDX answer: the decision of the remediation loop,
/// kept apart from the calls so it can be tested on recorded answers. The
/// security key is chosen by itself when the server offers it, unless the
/// person named another authenticator; forms a person must fill are asked;
/// anything else stops with its name — the loop never guesses.
public enum IDXNextStep: Sendable, Equatable {
    /// `successWithInteractionCode`: exchange the code for tokens.
    case exchange(IDXRemediation)
    /// Choose an authenticator without asking: the form and its values.
    case select(IDXRemediation, values: [String: String])
    /// Make a credential on the key for `enroll-authenticator`.
    case enrollWebAuthn(IDXRemediation)
    /// Get an assertion from the key for `challenge-authenticator`.
    case challengeWebAuthn(IDXRemediation)
    /// A form for the person (identify, a password, a choice).
    case ask(IDXRemediation)
    /// `idx.session.expired`: the transaction is gone; start a new one.
    case restart
    /// Only an external identity provider is offered (`redirect-idp`): a browser sign-in is needed.
    case browserNeeded(idps: [String])
    case stop(IDXError)

    /// Forms this client knows how to fill, in the order it prefers them.
    public static let knownForms = ["identify", "challenge-authenticator", "enroll-authenticator",
                                    "select-authenticator-authenticate", "select-authenticator-enroll",
                                    "identify-recovery", "enroll-profile", "select-enroll-profile", "skip"]

    /// `authenticator`: the name the person gave (`--authenticator`): an
    /// option's label, an authenticator's key, type or method; nil: the security key when offered.
    public static func next(_ response: IDXResponse, authenticator: String? = nil) -> IDXNextStep {
        if let success = response.success { return .exchange(success) }
        if response.isSessionExpired { return .restart }
        // Field-level errors count too: a refusal the server pins on a form's
        // field must not send the loop round for another touch.
        let errors = response.allMessages.filter(\.isError)
        let wantsKey = authenticator.map { matches(webAuthnNamed: $0) } ?? true
        // After an error the loop hands over or stops: an automatic step
        // repeated on a refusal would loop.
        if errors.isEmpty, wantsKey, response.currentAuthenticator?.isWebAuthn == true {
            if let form = response.remediation("enroll-authenticator") { return .enrollWebAuthn(form) }
            if let form = response.remediation("challenge-authenticator") { return .challengeWebAuthn(form) }
        }
        for name in ["select-authenticator-authenticate", "select-authenticator-enroll"] {
            guard errors.isEmpty, let form = response.remediation(name), let field = form.fields.first(where: { !$0.options.isEmpty }) else {
                continue
            }
            if let authenticator {
                guard let index = field.options.firstIndex(where: { option($0, in: response, isNamed: authenticator) }) else {
                    // The person's authenticator is not offered here; maybe a form before it is.
                    if response.remediation("enroll-authenticator") != nil || response.remediation("challenge-authenticator") != nil { break }
                    return .stop(.badValue(field: "--authenticator", reason: "\"\(authenticator)\" is not offered; the server offers: "
                                          + field.options.map(\.label).joined(separator: ", ")))
                }
                return .select(form, values: [field.name: String(index + 1)])
            }
            if let index = field.options.firstIndex(where: { isWebAuthn($0, in: response) }) {
                return .select(form, values: [field.name: String(index + 1)])
            }
        }
        for name in knownForms {
            guard let form = response.remediation(name) else { continue }
            // A form with nothing for a person to fill (a WebAuthn answer
            // after a refusal, say) is not asked: the refusal is the answer.
            if form.prompts.isEmpty {
                if !errors.isEmpty || !response.allMessages.isEmpty { break }
                continue
            }
            return .ask(form)
        }
        let idps = response.remediations.filter { $0.name == "redirect-idp" }
        if !idps.isEmpty { return .browserNeeded(idps: idps.map { $0.idpName ?? $0.idpId ?? "an identity provider" }) }
        let problems = response.allMessages.filter(\.isError)
        if !problems.isEmpty { return .stop(.refused(problems.map(\.text).joined(separator: " "))) }
        let offered = response.remediations.map(\.name)
        return .stop(.noRemediation(offered.isEmpty
            ? "the server offered nothing to continue with"
            : "the server asks for \(offered.joined(separator: ", ")), which passkey cannot do in the terminal; sign in with the browser flow"))
    }

    /// An option that chooses the security key: its form's `methodType`, or the authenticator it relates to.
    static func isWebAuthn(_ option: IDXOption, in response: IDXResponse) -> Bool {
        if option.fixed("methodType") == "webauthn" { return true }
        return related(option, in: response)?.isWebAuthn == true
    }

    static func option(_ option: IDXOption, in response: IDXResponse, isNamed name: String) -> Bool {
        let wanted = name.lowercased()
        if matches(webAuthnNamed: name) { return isWebAuthn(option, in: response) }
        if option.label.lowercased() == wanted || option.fixed("methodType")?.lowercased() == wanted { return true }
        guard let authenticator = related(option, in: response) else { return false }
        return [authenticator.key, authenticator.type, authenticator.displayName].contains { $0?.lowercased() == wanted }
            || authenticator.methods.contains { $0.lowercased() == wanted }
    }

    /// Names that mean the security key.
    static func matches(webAuthnNamed name: String) -> Bool {
        ["webauthn", "security_key", "security-key", "key", "fido2", "security key or biometric"].contains(name.lowercased())
    }

    /// The authenticator an option's `relatesTo` (`$.authenticators.value[n]`) or `id` points at.
    static func related(_ option: IDXOption, in response: IDXResponse) -> IDXAuthenticator? {
        if let id = option.fixed("id"), let found = (response.authenticators + response.enrollments).first(where: { $0.id == id }) {
            return found
        }
        for (prefix, list) in [("$.authenticators.value[", response.authenticators),
                               ("$.authenticatorEnrollments.value[", response.enrollments)] {
            guard let pointer = option.relatesTo, pointer.hasPrefix(prefix), pointer.hasSuffix("]") else { continue }
            let digits = pointer.dropFirst(prefix.count).dropLast()
            if digits.count <= 3, let index = Int(digits), list.indices.contains(index) { return list[index] }
        }
        return nil
    }
}
