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

/// `login.begin` with `flow: "okta-idx"` and `login.idx.proceed`
/// (docs/PROTOCOL.md, "Okta IDX"): the agent's side of OktaIDX's
/// remediation loop (`IDXSignIn`). The agent checks the params, keeps the
/// sign-in with its deadline among the logins, lends the loop the device
/// broker's key (`KeyCeremony`), and turns where the loop stands into
/// the protocol's `IDXStep`; the token set lands through `land`, as every
/// login's.
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
        let client = try IDXClient(transport: http, metadata: plan.metadata, clientId: plan.clientId, clientSecret: plan.clientSecret)
        let expiresAt = OutsideSeconds.instant(Int64(clamping: plan.timeout.components.seconds), after: TokenSet.now())
        let login = IDXLogin(plan: plan, signIn: IDXSignIn(client: client, scopes: plan.scopes, redirectURI: redirectURI,
                                                           authenticator: params.authenticator),
                             expiresAt: expiresAt)
        // One sign-in per account: the one it replaces fetches no tokens.
        logins.idxLogin(for: plan.account)?.signIn.abandon()
        logins.add(login)
        let ceremony = keyCeremony(params.device, pin: params.pin, interaction, interactive: params.interactive)
        let step = try await run(login) { try await login.signIn.begin(ceremony) }
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
        // Nothing (a password least of all) is sent for a sign-in past its deadline.
        guard !login.isExpired else {
            forget(login)
            throw AgentError(.timeout, "the IDX sign-in of \"\(params.account)\" was not completed in time; start it again")
        }
        let ceremony = keyCeremony(params.device, pin: params.pin, interaction, interactive: params.interactive)
        do {
            return try await run(login) {
                try await login.signIn.proceed(params.remediation, values: params.values ?? [:], ceremony: ceremony)
            }
        } catch IDXError.stepRunning {
            throw AgentError(.deviceBusy, "a step of the IDX sign-in of \"\(params.account)\" is already running; wait for its answer")
        }
    }

    /// Ends the sign-in here and at the server (its `cancel` form, best effort).
    package func cancelIDX(_ login: IDXLogin) async {
        logins.remove(login)
        await login.signIn.cancel()
    }

    /// A call into the sign-in, within its deadline, and where it then
    /// stands as the protocol's step. A sign-in that ended — failed,
    /// cancelled, landed, timed out — is forgotten with its secrets; one
    /// whose form the person can fill again is kept.
    private func run(_ login: IDXLogin, _ call: @escaping @Sendable () async throws -> IDXProgress) async throws -> IDXStep {
        let remaining = login.expiresAt - TokenSet.now()
        guard remaining > 0 else {
            forget(login)
            throw AgentError(.timeout, "the IDX sign-in of \"\(login.plan.account)\" was not completed in time; start it again")
        }
        do {
            return try await Self.withDeadline(.seconds(remaining), account: login.plan.account) {
                try await self.step(try await call(), login: login)
            }
        } catch {
            if login.signIn.hasEnded || !(error is IDXError) { forget(login) }
            throw error
        }
    }

    private func forget(_ login: IDXLogin) {
        login.signIn.abandon()
        logins.remove(login)
    }

    /// Where the loop stands, as the protocol's step: a form to show, or
    /// the landed login; a sign-in only the browser can finish is refused
    /// with the command that can.
    private func step(_ progress: IDXProgress, login: IDXLogin) async throws -> IDXStep {
        switch progress {
        case .ask(let form, let response, let notices):
            return Self.step(asking: form, in: response, notices: notices, expiresAt: login.expiresAt)
        case .signedIn(let tokens, let nonce, let notices):
            var plan = login.plan
            // The identifier the person gave is saved with the account, for the next sign-in.
            plan.username = login.signIn.username ?? plan.username
            let result = try await land(tokens, nonce: nonce, plan: plan)
            logins.remove(login)
            return IDXStep(done: true, login: result, messages: notices, expiresAt: login.expiresAt)
        case .browserNeeded(let idps):
            throw AgentError(.unsupported, "\(login.plan.issuer) signs in through \(idps.joined(separator: ", ")), which needs the browser: "
                             + "run `passkey login \(login.plan.account) --idp ID --flow browser` with the identity provider's id")
        }
    }

    private func keyCeremony(_ device: DeviceChoice?, pin: String?, _ interaction: any UserInteraction,
                             interactive: Bool?) -> KeyCeremony {
        KeyCeremony(devices: devices, device: device, pin: pin,
                          interaction: GuardedInteraction(interaction, interactive: interactive ?? false))
    }

    /// The form to show, with every message of the answer.
    package static func step(asking form: IDXRemediation, in response: IDXResponse, notices: [IDXMessage], expiresAt: Int64) -> IDXStep {
        let fields = form.prompts.map {
            IDXFieldPrompt(path: $0.path, label: $0.label, type: $0.type, required: $0.required, secret: $0.secret,
                           options: $0.options, messages: $0.messages.map(\.text))
        }
        let messages = notices + response.messages
        return IDXStep(done: false, remediation: form.name, fields: fields,
                       offered: response.remediations.map(\.name) + (response.cancel == nil ? [] : ["cancel"]),
                       messages: messages, expiresAt: expiresAt)
    }
}
