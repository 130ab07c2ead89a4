import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import FoundationEssentials
import Locking
import OpenID

/// The logins in flight, one per account, and the providers the agent has
/// met (each keeps its discovery document and keys in memory beside the
/// disk cache). A login's secrets — state, nonce, PKCE verifier, device
/// code — live only in its `PendingLogin`, in this process's memory.
package final class LoginSessions: Sendable {
    private let pending = Locked<[String: PendingLogin]>([:])
    /// Okta IDX sign-ins in flight (IDXLogin.swift), one per account.
    private let idx = Locked<[String: IDXLogin]>([:])

    /// Starts tracking an IDX sign-in; one in flight for the account is replaced.
    package func add(_ login: IDXLogin) {
        idx.withLock { $0[login.plan.account] = login }
    }

    /// The account's IDX sign-in, unless its deadline has passed: an
    /// abandoned one is forgotten with its secrets on the next look.
    package func idxLogin(for account: String) -> IDXLogin? {
        idx.withLock { logins in
            guard let login = logins[account] else { return nil }
            if login.isExpired { logins[account] = nil; return nil }
            return login
        }
    }

    /// Forgets `login` if it is still the account's.
    package func remove(_ login: IDXLogin) {
        idx.withLock { logins in
            if logins[login.plan.account] === login { logins[login.plan.account] = nil }
        }
    }

    /// Starts tracking `login`; a login already in flight for the account is cancelled.
    package func add(_ login: PendingLogin) {
        let replaced = pending.withLock { $0.updateValue(login, forKey: login.account) }
        replaced?.cancel()
    }

    package func login(for account: String) -> PendingLogin? {
        pending.withLock { $0[account] }
    }

    /// The logins in flight whose redirect URI `url` is (a query after it at
    /// most): which of them it belongs to, its `state` decides.
    package func logins(awaiting url: String) -> [PendingLogin] {
        pending.withLock { logins in
            logins.values.filter { login in
                guard let redirect = login.started.redirectURI, !redirect.isEmpty, url.hasPrefix(redirect) else { return false }
                let rest = url.dropFirst(redirect.count)
                return rest.isEmpty || rest.hasPrefix("?")
            }.sorted { $0.account < $1.account }
        }
    }

    /// Forgets `login` if it is still the account's (a newer one may have replaced it).
    package func remove(_ login: PendingLogin) {
        pending.withLock { logins in
            if logins[login.account] === login { logins[login.account] = nil }
        }
    }
}

/// One login in flight: what the person was shown, the task that runs the
/// flow to the end, and (browser and paste flows) where a pasted redirect goes.
package final class PendingLogin: Sendable {
    package let account: String
    package let started: LoginStarted
    /// The authorization request (browser and paste flows): checks a pasted redirect.
    package let request: AuthorizationRequest?
    package let metadata: ProviderMetadata
    /// The browser flow's launch page: removed when the login ends.
    package let launchPage: LaunchPage?
    private let pastes: AsyncStream<Result<String, OpenIDError>>.Continuation
    private let run = Locked<Task<LoginResult, any Error>?>(nil)

    package init(account: String, started: LoginStarted, request: AuthorizationRequest?, metadata: ProviderMetadata,
         pastes: AsyncStream<Result<String, OpenIDError>>.Continuation, launchPage: LaunchPage? = nil) {
        self.account = account
        self.started = started
        self.request = request
        self.metadata = metadata
        self.pastes = pastes
        self.launchPage = launchPage
    }

    package func start(_ body: @escaping @Sendable () async throws -> LoginResult) {
        run.withLock { $0 = Task { try await body() } }
    }

    /// The login's result if it ends within `limit`, else nil (it runs on).
    /// Cancelling the wait (the client hung up or sent `$/cancel`) cancels the login.
    package func result(waitingAtMost limit: Duration) async throws -> LoginResult? {
        guard let task = run.withLock({ $0 }) else { throw AgentError(.internal, "the login has not started") }
        return try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: LoginResult?.self) { group in
                group.addTask { try await task.value }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// A pasted redirect URL, checked against this login's request first: a
    /// URL of another login (wrong `state`) is refused and the login waits on.
    package func paste(_ url: String) throws {
        guard let request else {
            throw AgentError(.invalidInput, "the \(started.flow.rawValue) login of \"\(account)\" takes no pasted redirect")
        }
        do throws(OpenIDError) {
            let code = try request.code(fromRedirect: url, metadata: metadata)
            pastes.yield(.success(code))
        } catch .stateMismatch {
            throw OpenIDError.stateMismatch
        } catch {
            // The provider's refusal (or a mix-up) ends the login: its waiter hears why too.
            pastes.yield(.failure(error))
            throw error
        }
    }

    package func cancel() {
        launchPage?.remove()
        pastes.finish()
        run.withLock { $0 }?.cancel()
    }
}
