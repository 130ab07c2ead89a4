import Foundation
import Testing
import TestSupport

/// `passkey webauthn create/get` with the software authenticator, judged by
/// an independent relying-party library (py_webauthn).
@Suite(.ownThreads) struct IndependentVerifierTests {
    @Test func registrationAndBothKindsOfAssertionVerify() throws {
        let harness = try AgentHarness()
        let userId = WebAuthnFixtures.randomBase64URL(32)
        let createOptions = WebAuthnFixtures.creationOptions(userId: userId)
        let createFile = harness.home + "/create.json"
        try createOptions.write(toFile: createFile, atomically: true, encoding: .utf8)
        // Piped on stdin, as the example does.
        let created = try harness.passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
                                          standardInput: createOptions)
        #expect(created.status == 0, "\(created.standardError)")
        try created.standardOutput.write(toFile: harness.home + "/registration.json", atomically: true, encoding: .utf8)
        let registration = try Interop.run("verify_webauthn.py",
                                           ["register", createFile, harness.home + "/registration.json", "https://example.org"],
                                           scratch: harness.home)
        #expect(registration.status == 0, "py_webauthn refused the registration: \(registration.standardError)")
        let verified = try #require(try JSONSerialization.jsonObject(with: Data(registration.standardOutput.utf8)) as? [String: Any])
        let publicKey = try #require(verified["publicKey"] as? String)
        var counter = try #require(verified["signCount"] as? Int)

        let response = try #require(try JSONSerialization.jsonObject(with: Data(created.standardOutput.utf8)) as? [String: Any])
        let credentialId = try #require(response["id"] as? String)
        #expect(response["authenticatorAttachment"] as? String == "cross-platform")
        #expect(((response["response"] as? [String: Any])?["transports"] as? [String]) == ["usb"])

        for allow in [[], [credentialId]] {
            let options = WebAuthnFixtures.requestOptions(allow: allow)
            let optionsFile = harness.home + "/get.json"
            try options.write(toFile: optionsFile, atomically: true, encoding: .utf8)
            let got = try harness.passkey(["webauthn", "get", "--device", "virtual", "--origin", "https://example.org"],
                                          standardInput: options)
            #expect(got.status == 0, "\(got.standardError)")
            try got.standardOutput.write(toFile: harness.home + "/assertion.json", atomically: true, encoding: .utf8)
            let check = try Interop.run("verify_webauthn.py",
                                        ["authenticate", optionsFile, harness.home + "/assertion.json", "https://example.org",
                                         publicKey, String(counter)], scratch: harness.home)
            #expect(check.status == 0, "py_webauthn refused the assertion: \(check.standardError)")
            let result = try #require(try JSONSerialization.jsonObject(with: Data(check.standardOutput.utf8)) as? [String: Any])
            let newCounter = try #require(result["newSignCount"] as? Int)
            #expect(newCounter > counter, "the signature counter increases")
            counter = newCounter
            let assertion = try #require(try JSONSerialization.jsonObject(with: Data(got.standardOutput.utf8)) as? [String: Any])
            let userHandle = (assertion["response"] as? [String: Any])?["userHandle"] as? String
            #expect(userHandle == userId, "the user handle is the user.id bytes")
        }
    }
}
