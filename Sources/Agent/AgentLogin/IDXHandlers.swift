import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import FoundationEssentials
import Interaction
import OktaIDX
import OpenID
import Tokens
import WebAuthnClient

/// `login.begin` with `flow: "okta-idx"` and `login.idx.proceed`: the IDX
/// remediation loop in the agent (docs/PROTOCOL.md, "Okta IDX"). The next
/// step is decided by `IDXNextStep`; the security key's steps run here on
/// the device broker's key with WebAuthnClient, the issuer's origin as the
/// WebAuthn origin; the token set lands through `land`, as every login's.
extension LoginCapability {
    /// The redirect URI sent to `/v1/interact` when none is given: IDX
    /// redirects only for an external IdP, which this flow hands to the browser flow.
    package static let idxDefaultRedirectURI = "http://127.0.0.1/callback"

    package func beginIDX(_ plan: LoginPlan, params: LoginBeginMethod.Params, interaction: any UserInteraction) async throws -> LoginStarted {
        let redirectURI = params.redirectURI ?? Self.idxDefaultRedirectURI
        guard (1...2048).contains(redirectURI.utf8.count), !redirectURI.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f }) else {
            throw AgentError(.invalidInput, "--redirect-uri is 1 to 2048 characters without spaces or control characters")
        }
        if let name = params.authenticator {
            guard (1...128).contains(name.utf8.count), TokenError.sanitised(name) == name else {
                throw AgentError(.invalidInput, "--authenticator is 1 to 128 characters without control characters")
            }
        }
        let client: IDXClient
        do {
            client = try IDXClient(transport: http, metadata: plan.metadata, clientId: plan.clientId, clientSecret: plan.clientSecret)
        } catch {
            throw error.agentError
        }
        let timeout = Int64(clamping: plan.timeout.components.seconds)
        let expiresAt = OutsideSeconds.instant(timeout, after: TokenSet.now())
        let (transaction, response): (IDXTransaction, IDXResponse)
        do {
            (transaction, response) = try await Self.withDeadline(plan.timeout, account: plan.account) {
                try await Self.startIDX(client, plan: plan, redirectURI: redirectURI)
            }
        } catch let error as IDXError {
            throw error.agentError
        }
        let login = IDXLogin(plan: plan, client: client, authenticator: params.authenticator, redirectURI: redirectURI,
                             expiresAt: expiresAt, transaction: transaction, response: response)
        _ = login.claim()
        defer { login.release() }
        logins.add(login)
        let ceremony = IDXCeremony(device: params.device, pin: params.pin,
                                   interaction: GuardedInteraction(interaction, interactive: params.interactive ?? false))
        let step = try await advanceIDX(login, ceremony: ceremony, notices: [])
        return LoginStarted(account: plan.account, issuer: plan.issuer, flow: .oktaIDX, expiresAt: expiresAt, idx: step,
                            username: plan.username)
    }

    package func proceedIDX(_ params: LoginIDXProceedMethod.Params, interaction: any UserInteraction) async throws -> IDXStep {
        try TokensCapability.checkAccount(params.account)
        guard let login = logins.idxLogin(for: params.account) else {
            throw AgentError(.notFound, "no IDX sign-in of \"\(params.account)\" is in progress: start one with "
                             + "`passkey login \(params.account) --via okta-idx`")
        }
        if params.remediation == "cancel" {
            await cancelIDX(login)
            throw AgentError(.cancelled, "the IDX sign-in of \"\(params.account)\" was cancelled")
        }
        guard login.claim() else {
            throw AgentError(.deviceBusy, "a step of the IDX sign-in of \"\(params.account)\" is already running; wait for its answer")
        }
        defer { login.release() }
        let response = await login.response
        guard let form = response.remediation(params.remediation) else {
            throw IDXError.noSuchRemediation(TokenError.sanitised(String(params.remediation.prefix(64))) ?? "",
                                                     offered: response.remediations.map(\.name))
        }
        let ceremony = IDXCeremony(device: params.device, pin: params.pin,
                                   interaction: GuardedInteraction(interaction, interactive: params.interactive ?? false))
        // Nothing (a password least of all) is sent for a sign-in past its deadline.
        guard !login.isExpired else {
            logins.remove(login)
            throw AgentError(.timeout, "the IDX sign-in of \"\(params.account)\" was not completed in time; start it again")
        }
        do {
            guard await login.countStep() else { throw Self.tooManySteps }
            // The IDXError must reach the catch below as it is: a form error
            // keeps the sign-in, anything else ends it.
            let next = try await login.client.proceed(form, values: params.values ?? [:], stateHandle: response.stateHandle)
            // The identifier the person gave is saved at the end, for the next sign-in.
            if let identifier = params.values?.first(where: { $0.key == "identifier" || $0.key.hasSuffix(".identifier") })?.value,
               (1...256).contains(identifier.utf8.count), TokenError.sanitised(identifier) == identifier {
                await login.remember(username: identifier)
            }
            await login.update(next)
        } catch let error as IDXError {
            // A form the person filled wrongly can be filled again: the sign-in goes on.
            if case .missingValue = error { throw AgentError(.invalidInput, error.description) }
            if case .badValue = error { throw AgentError(.invalidInput, error.description) }
            logins.remove(login)
            throw error.agentError
        } catch {
            logins.remove(login)
            throw error
        }
        return try await advanceIDX(login, ceremony: ceremony, notices: [])
    }

    /// Ends the sign-in at the server (its `cancel` form, best effort) and here.
    package func cancelIDX(_ login: IDXLogin) async {
        logins.remove(login)
        let response = await login.response
        if let cancel = response.cancel {
            _ = try? await login.client.proceed(cancel, values: [:], stateHandle: response.stateHandle)
        }
    }

    /// Runs automatic steps until the person has to fill a form or the
    /// sign-in ends. Any error ends the sign-in (it is forgotten).
    private func advanceIDX(_ login: IDXLogin, ceremony: IDXCeremony, notices: [IDXNotice]) async throws -> IDXStep {
        let remaining = login.expiresAt - TokenSet.now()
        guard remaining > 0 else {
            logins.remove(login)
            throw AgentError(.timeout, "the IDX sign-in of \"\(login.plan.account)\" was not completed in time; start it again")
        }
        do {
            return try await Self.withDeadline(.seconds(remaining), account: login.plan.account) {
                try await self.runIDX(login, ceremony: ceremony, notices: notices)
            }
        } catch let error as IDXError {
            logins.remove(login)
            throw error.agentError
        } catch {
            logins.remove(login)
            throw error
        }
    }

    private func runIDX(_ login: IDXLogin, ceremony: IDXCeremony, notices: [IDXNotice]) async throws -> IDXStep {
        var notices = notices
        let origin = try WebAuthnOrigin(login.client.endpoints.origin)
        let host = login.client.endpoints.host
        for _ in 0..<IDXLogin.maximumAutomaticSteps {
            let response = await login.response
            let send: (IDXRemediation, [String: String])
            switch IDXNextStep.next(response, authenticator: login.authenticator) {
            case .exchange(let success):
                // A sign-in cancelled (or replaced) while this step ran must not land its tokens.
                guard logins.idxLogin(for: login.plan.account) === login else {
                    throw AgentError(.cancelled, "the IDX sign-in of \"\(login.plan.account)\" was cancelled")
                }
                let transaction = await login.transaction
                let tokens = try await login.client.exchange(success, transaction: transaction)
                var plan = login.plan
                plan.username = await login.username ?? plan.username
                let result = try await land(tokens, nonce: transaction.nonce, plan: plan)
                logins.remove(login)
                return IDXStep(done: true, login: result, messages: notices, expiresAt: login.expiresAt)
            case .ask(let form):
                return Self.step(asking: form, in: response, notices: notices, expiresAt: login.expiresAt)
            case .select(let form, let values):
                send = (form, values)
            case .enrollWebAuthn(let form):
                let options = try IDXWebAuthn.creationOptions(response, issuerHost: host)
                let registration = try await devices.withDevice(ceremony.device) { device in
                    try await CreateCredential(options: options, origin: origin).run(on: device, pin: ceremony.pin, interaction: ceremony.interaction)
                }
                send = (form, IDXWebAuthn.enrollValues(attestationObject: registration.response.attestationObject.bytes,
                                                       clientDataJSON: registration.response.clientDataJSON.bytes))
            case .challengeWebAuthn(let form):
                let options = try IDXWebAuthn.requestOptions(response, issuerHost: host)
                let assertion = try await devices.withDevice(ceremony.device) { device in
                    try await GetCredential(options: options, origin: origin).run(on: device, pin: ceremony.pin, interaction: ceremony.interaction)
                }
                send = (form, IDXWebAuthn.challengeValues(authenticatorData: assertion.response.authenticatorData.bytes,
                                                          clientDataJSON: assertion.response.clientDataJSON.bytes,
                                                          signature: assertion.response.signature.bytes))
            case .restart:
                guard await !login.restarted else { throw IDXError.sessionExpired }
                let (transaction, fresh) = try await Self.startIDX(login.client, plan: login.plan, redirectURI: login.redirectURI)
                await login.restart(transaction, fresh)
                notices.append(IDXNotice(text: "The sign-in had expired at the server; it was started again.", key: "idx.session.expired",
                                         severity: "INFO"))
                continue
            case .browserNeeded(let idps):
                throw AgentError(.unsupported, "\(login.plan.issuer) signs in through \(idps.joined(separator: ", ")), which needs the browser: "
                                 + "run `passkey login \(login.plan.account) --idp ID --flow browser` with the identity provider's id")
            case .stop(let error):
                throw error
            }
            guard await login.countStep() else { throw Self.tooManySteps }
            let next = try await login.client.proceed(send.0, values: send.1, stateHandle: response.stateHandle)
            await login.update(next)
        }
        throw Self.tooManySteps
    }

    package static let tooManySteps = AgentError(.serverError, "the IDX sign-in went round too many steps without finishing; it was stopped")

    /// interact, then introspect.
    package static func startIDX(_ client: IDXClient, plan: LoginPlan, redirectURI: String) async throws -> (IDXTransaction, IDXResponse) {
        let transaction = try await client.interact(scopes: plan.scopes, redirectURI: redirectURI)
        return (transaction, try await client.introspect(transaction))
    }

    /// The form to show, with every message of the answer.
    package static func step(asking form: IDXRemediation, in response: IDXResponse, notices: [IDXNotice], expiresAt: Int64) -> IDXStep {
        let fields = form.prompts.map {
            IDXFieldPrompt(path: $0.path, label: $0.label, type: $0.type, required: $0.required, secret: $0.secret,
                           options: $0.options, messages: $0.messages.map(\.text))
        }
        let messages = notices + response.messages.map { IDXNotice(text: $0.text, key: $0.key, severity: $0.severity) }
        return IDXStep(done: false, remediation: form.name, fields: fields,
                       offered: response.remediations.map(\.name) + (response.cancel == nil ? [] : ["cancel"]),
                       messages: messages, expiresAt: expiresAt)
    }
}

/// How the security key's steps of one call run: which key, its PIN, and who answers prompts.
package struct IDXCeremony: Sendable {
    package let device: DeviceChoice?
    package let pin: String?
    package let interaction: GuardedInteraction
}
