import Foundation
import HTTPTransport
import OktaIDX
import OpenID
import Testing
import TestSupport

/// The IDX client against the real devserver program's IDX subset, with
/// the tests' software authenticator standing in for the key: the grant's
/// refusals the agent cannot provoke on purpose (it never replays a code or
/// forgets its verifier), and an assertion by a key the user never enrolled.
@Suite(.ownThreads, .timeLimit(.minutes(2))) struct IDXDevServerTests {
    final class Server: @unchecked Sendable {
        let program: DevServerProgram
        let directory: String
        let origin: String
        var issuer: String { origin + "/oauth2/default" }

        init() throws {
            directory = try TemporaryDirectory.make(prefix: "idx-devserver")
            let users = directory + "/users"
            try "carol\n".write(toFile: users, atomically: true, encoding: .utf8)
            chmod(users, 0o600)
            program = try DevServerProgram(arguments: ["--listen", "127.0.0.1:0", "--idx-users-file", users],
                                           directory: directory, name: "devserver")
            let line = try program.waitForStartupLine()
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            origin = try #require(object?["apiUrl"] as? String)
        }

        deinit {
            _ = program.process.stop(signal: SIGKILL)
            TemporaryDirectory.remove(directory)
        }

        func client() async throws -> IDXClient {
            let transport = HTTPTransport()
            let metadata = try await OpenIDProvider(issuer: issuer, transport: transport, cacheDirectory: nil).metadata()
            return try IDXClient(transport: transport, metadata: metadata, clientId: "cli")
        }
    }

    /// identify → (select the key) → enroll or challenge, with `key`; the answer after the key's.
    static func signIn(_ client: IDXClient, key: inout SoftwareAuthenticator) async throws -> (IDXTransaction, IDXResponse) {
        let transaction = try await client.interact(scopes: ["openid", "offline_access"], redirectURI: "http://127.0.0.1/callback")
        var response = try await client.introspect(transaction)
        for _ in 0..<6 {
            switch IDXNextStep.next(response) {
            case .ask(let form) where form.name == "identify":
                response = try await client.proceed(form, values: ["identifier": "carol"], stateHandle: response.stateHandle)
            case .select(let form, let values):
                response = try await client.proceed(form, values: values, stateHandle: response.stateHandle)
            case .enrollWebAuthn(let form):
                let registration = key.register(try IDXWebAuthn.creationOptions(response, issuerHost: client.endpoints.host),
                                                origin: client.endpoints.origin)
                response = try await client.proceed(form, values: IDXWebAuthn.enrollValues(
                    attestationObject: registration.response.attestationObject.bytes,
                    clientDataJSON: registration.response.clientDataJSON.bytes), stateHandle: response.stateHandle)
            case .challengeWebAuthn(let form):
                let assertion = key.assert(try IDXWebAuthn.requestOptions(response, issuerHost: client.endpoints.host),
                                           origin: client.endpoints.origin)
                return (transaction, try await client.proceed(form, values: IDXWebAuthn.challengeValues(
                    authenticatorData: assertion.response.authenticatorData.bytes, clientDataJSON: assertion.response.clientDataJSON.bytes,
                    signature: assertion.response.signature.bytes), stateHandle: response.stateHandle))
            default:
                return (transaction, response)
            }
        }
        return (transaction, response)
    }

    @Test("the interaction code is single-use, the verifier must be the interact challenge's, an unenrolled key is refused")
    func grantRefusals() async throws {
        let server = try Server()
        let client = try await server.client()
        var key = SoftwareAuthenticator()

        // Enrollment ends in success: the code with the right verifier gives tokens, once.
        let (enrolling, enrolled) = try await Self.signIn(client, key: &key)
        guard case .exchange(let success) = IDXNextStep.next(enrolled) else { Issue.record("enrolled: \(enrolled.allMessages)"); return }
        let tokens = try await client.exchange(success, transaction: enrolling)
        #expect(!tokens.accessToken.isEmpty && tokens.idToken != nil)
        do {
            _ = try await client.exchange(success, transaction: enrolling)
            Issue.record("a replayed interaction code was accepted")
        } catch {
            guard case .token(.invalidGrant) = error else { Issue.record("replay: \(error)"); return }
        }

        // Signing in with the enrolled key; the code with another verifier is refused.
        let (transaction, answered) = try await Self.signIn(client, key: &key)
        guard case .exchange(let second) = IDXNextStep.next(answered) else { Issue.record("signed in: \(answered.allMessages)"); return }
        let forged = IDXTransaction(pkce: PKCE(), state: transaction.state, nonce: transaction.nonce,
                                    interactionHandle: transaction.interactionHandle)
        do {
            _ = try await client.exchange(second, transaction: forged)
            Issue.record("a wrong PKCE verifier was accepted")
        } catch {
            guard case .token(.invalidGrant) = error else { Issue.record("wrong verifier: \(error)"); return }
        }

        // Another key, whose credential the user never enrolled, answers the challenge: refused, no code.
        var stranger = SoftwareAuthenticator()
        stranger.credentialId = key.credentialId.map { $0 ^ 0xff }
        let (_, refused) = try await Self.signIn(client, key: &stranger)
        #expect(refused.success == nil)
        guard case .stop(let error) = IDXNextStep.next(refused) else {
            Issue.record("an unenrolled key's assertion must stop the loop: \(refused.allMessages)"); return
        }
        #expect(error.description.contains("not made by a security key enrolled for carol"), "\(error)")
    }
}
