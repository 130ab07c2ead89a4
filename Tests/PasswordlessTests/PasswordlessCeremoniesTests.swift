import Base64
import DevServerTestSupport
import FIDO
import FIDOTestSupport
import FoundationEssentials
import Passwordless
import Testing
import TestSupport
import VirtualAuthenticator
import WebAuthnClient

/// The iOS SDK's register and sign-in, with the software authenticator
/// through libfido2, against the devserver's passwordless.dev API in this
/// process over loopback HTTP; the app's backend redeems every token on the
/// secret API, so each ceremony is judged by the server that verified it.
@Suite(.ownThreads) struct PasswordlessCeremoniesTests {
    @Test("register, then sign in by alias, by user id and discoverably: every token verifies once, for that user and credential")
    func registerThenSignInEveryWay() async throws {
        try await DevServerHarness.with { harness in
            let app = try PasswordlessApp(harness)
            let key = try SoftwareKey()
            let person = ScriptedKeyHolder()
            let token = try await app.registerToken("user-1", alias: "alice@example.com")
            let registration = try await app.ceremonies.register(token: token, nickname: "work key", on: key.device, pin: nil,
                                                                 interaction: person)
            #expect(registration.rpId == harness.rpId && registration.origin == "https://\(harness.rpId)")
            #expect(registration.nickname == "work key")
            #expect(registration.residentKey == true, "a discoverable register token makes a discoverable credential (credProps.rk)")
            #expect(registration.transports == ["usb"] && registration.authenticatorAttachment == "cross-platform")
            #expect(person.stages.withLock { $0 }.contains(.processing))
            let credentialId = try #require(Base64URL.decodeEitherAlphabet(registration.credentialId))

            let registered = try await app.backend.verify(token: registration.token)
            #expect(registered.success && registered.userId == "user-1" && registered.type == "passkey_register")
            #expect(registered.rpId == harness.rpId && registered.origin == "https://\(harness.rpId)")
            #expect(registered.credentialId.flatMap(Base64URL.decodeEitherAlphabet) == credentialId)

            let ways: [(PasswordlessCeremonies.Account, offered: Int)] = [(.alias("alice@example.com"), 1), (.userId("user-1"), 1),
                                                                          (.discoverable, 0)]
            for (account, offered) in ways {
                let signIn = try await app.ceremonies.signIn(account, user: nil, on: key.device, pin: nil, interaction: person)
                #expect(signIn.credentialId == registration.credentialId, "\(account)")
                #expect(signIn.offeredCredentials == offered, "\(account): the server named \(offered) credentials")
                #expect(signIn.rpId == harness.rpId && signIn.origin == "https://\(harness.rpId)")
                #expect(signIn.userId == "user-1", "\(account): the user handle, as text, is the passwordless.dev user id")
                #expect(signIn.userHandle == Base64URL.encode(Array("user-1".utf8)))
                let verified = try await app.backend.verify(token: signIn.token)
                #expect(verified.success && verified.userId == "user-1" && verified.type == "passkey_signin", "\(account)")
                #expect(verified.credentialId.flatMap(Base64URL.decodeEitherAlphabet) == credentialId)
                // The backend redeems a verify token once.
                let again = await thrownError { try await app.backend.verify(token: signIn.token) }
                guard case .server(let problem)? = again as? PasswordlessError else {
                    Issue.record("a spent verify token was accepted again: \(String(describing: again))")
                    continue
                }
                #expect(problem.status == 403 && problem.errorCode == "token_already_used")
            }
            #expect(person.accountLists.withLock { $0 }.isEmpty, "one credential: nobody was asked to choose")
        }
    }

    @Test("a key holding two accounts: --user picks by name or display name, else the person chooses, else noSuchAccount lists them")
    func choosingAmongDiscoverableAccounts() async throws {
        try await DevServerHarness.with { harness in
            let app = try PasswordlessApp(harness)
            let key = try SoftwareKey()
            for user in ["user-a", "user-b"] {
                _ = try await app.ceremonies.register(token: try await app.registerToken(user), nickname: nil, on: key.device, pin: nil,
                                                      interaction: ScriptedKeyHolder())
            }
            let byName = try await app.ceremonies.signIn(.discoverable, user: "user-b@example.com", on: key.device, pin: nil,
                                                         interaction: ScriptedKeyHolder())
            #expect(byName.userId == "user-b")
            let byDisplayName = try await app.ceremonies.signIn(.discoverable, user: "User user-a", on: key.device, pin: nil,
                                                                interaction: ScriptedKeyHolder())
            #expect(byDisplayName.userId == "user-a")
            #expect(try await app.backend.verify(token: byDisplayName.token).userId == "user-a")

            let person = ScriptedKeyHolder(account: 1)
            let chosen = try await app.ceremonies.signIn(.discoverable, user: nil, on: key.device, pin: nil, interaction: person)
            let lists = person.accountLists.withLock { $0 }
            try #require(lists.count == 1 && lists[0].count == 2, "the person was asked once, with both accounts: \(lists)")
            let names = Set(lists[0].compactMap(\.name))
            #expect(names == ["user-a@example.com", "user-b@example.com"])
            #expect(chosen.userId.map { "\($0)@example.com" } == lists[0][1].name, "the account the person chose signed in")
            #expect(try await app.backend.verify(token: chosen.token).userId == chosen.userId)

            let missing = await thrownError {
                try await app.ceremonies.signIn(.discoverable, user: "mallory", on: key.device, pin: nil, interaction: ScriptedKeyHolder())
            }
            guard case .ceremony(.noSuchAccount(let wanted, let available))? = missing as? PasswordlessError else {
                Issue.record("expected noSuchAccount, got \(String(describing: missing))")
                return
            }
            #expect(wanted == "mallory")
            #expect(Set(available) == ["User user-a <user-a@example.com>", "User user-b <user-b@example.com>"])
        }
    }

    @Test("the key declines: the ceremony's error, not the server's, and nothing is completed")
    func theKeyDeclines() async throws {
        try await DevServerHarness.with { harness in
            let app = try PasswordlessApp(harness)
            let key = try SoftwareKey(VirtualAuthenticatorConfiguration(presence: .deny, verification: .deny, builtInUV: false))
            let error = await thrownError {
                try await app.ceremonies.register(token: try await app.registerToken("user-2"), nickname: nil, on: key.device, pin: nil,
                                                  interaction: ScriptedKeyHolder())
            }
            #expect(error as? PasswordlessError == .ceremony(.authenticator(.operationDenied)))
            // Nothing was registered: a sign-in for that user is offered no credential.
            let empty = await thrownError {
                try await app.ceremonies.signIn(.userId("user-2"), user: nil, on: try SoftwareKey().device, pin: nil,
                                                interaction: ScriptedKeyHolder())
            }
            #expect(empty as? PasswordlessError == .ceremony(.authenticator(.noCredentials)))
        }
    }

    @Test("a key with a PIN: the person is asked for it with the reason, and the server sees a verified user")
    func aKeyWithAPIN() async throws {
        try await DevServerHarness.with { harness in
            let app = try PasswordlessApp(harness)
            let hid = try VirtualHIDDevice(configuration: VirtualAuthenticatorConfiguration(builtInUV: false))
            let descriptor = DeviceDescriptor(path: "virtual", manufacturer: "test", product: "virtual", vendorId: 0, productId: 0,
                                              isSoftware: true)
            try FIDODevice.open(.packetDevice(hid, descriptor)).setPIN("4826")
            let device = try FIDODevice.open(.packetDevice(hid, descriptor))  // its GetInfo now says clientPin
            let person = ScriptedKeyHolder(pins: ["4826"])
            let registration = try await app.ceremonies.register(token: try await app.registerToken("user-3"), nickname: nil, on: device,
                                                                 pin: nil, interaction: person)
            let asked = person.pinRequests.withLock { $0 }
            #expect(asked.count == 1 && asked.first?.reason.contains("to register with \(harness.rpId)") == true, "\(asked)")
            #expect(try await app.backend.verify(token: registration.token).userId == "user-3")
            // A PIN given up front is used, and the person is not asked.
            let quiet = ScriptedKeyHolder()
            let signIn = try await app.ceremonies.signIn(.userId("user-3"), user: nil, on: device, pin: "4826", interaction: quiet)
            #expect(quiet.pinRequests.withLock { $0 }.isEmpty)
            #expect(try await app.backend.verify(token: signIn.token).userId == "user-3")
        }
    }

    @Test("the server's refusals arrive as its problem details: an expired register token, a wrong public key, a foreign origin")
    func serverRefusals() async throws {
        try await DevServerHarness.with { harness in
            let app = try PasswordlessApp(harness)
            let key = try SoftwareKey()
            let person = ScriptedKeyHolder()

            let token = try await app.registerToken("user-4")
            harness.clock.advance(seconds: 121)
            let expired = await thrownError {
                try await app.ceremonies.register(token: token, nickname: nil, on: key.device, pin: nil, interaction: person)
            }
            guard case .server(let problem)? = expired as? PasswordlessError else {
                Issue.record("expected the server's refusal, got \(String(describing: expired))")
                return
            }
            #expect(problem.status == 403 && problem.errorCode == "expired_token")
            #expect(problem.description.hasPrefix("the server refused the request: expired_token (403) — The token expired"))
            #expect(person.stages.withLock { $0 }.isEmpty, "the key was not touched for a refused begin")

            let wrongKey = try PasswordlessApp(harness, apiKey: "devapp:public:0000000000000000000000000000000000")
            let unauthorised = await thrownError {
                try await wrongKey.ceremonies.signIn(.discoverable, user: nil, on: key.device, pin: nil, interaction: person)
            }
            guard case .server(let refusal)? = unauthorised as? PasswordlessError else {
                Issue.record("expected the server's refusal, got \(String(describing: unauthorised))")
                return
            }
            #expect(refusal.status == 401)

            let foreign = try PasswordlessApp(harness, origin: "https://evil.example")
            let refusedOrigin = await thrownError {
                try await foreign.ceremonies.register(token: try await app.registerToken("user-5"), nickname: nil, on: key.device,
                                                      pin: nil, interaction: person)
            }
            guard case .server(let originProblem)? = refusedOrigin as? PasswordlessError else {
                Issue.record("expected the server's refusal, got \(String(describing: refusedOrigin))")
                return
            }
            #expect((400..<500).contains(originProblem.status))
        }
    }
}
