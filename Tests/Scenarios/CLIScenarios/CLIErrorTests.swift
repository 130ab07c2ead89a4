import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Bad input and refusals: one clear line on stderr, a documented exit
/// status, and JSON with --json. All in-process (no agent running).
@Suite(.ownThreads) struct CLIErrorTests {
    let harness: AgentHarness
    init() throws { harness = try AgentHarness() }

    func passkey(_ arguments: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> ProcessResult {
        try harness.passkey(arguments, standardInput: stdin, extraEnvironment: env)
    }

    @Test func malformedOptionsNameTheProblem() throws {
        let notJSON = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"], stdin: "{nope")
        #expect(notJSON.status == 11)
        #expect(notJSON.standardError.hasPrefix("passkey: the options are not valid"))
        #expect(notJSON.standardError.split(separator: "\n").count == 1, "one line")

        let noChallenge = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
                                      stdin: #"{"rp":{"id":"example.org","name":"x"},"user":{"id":"AAAA","name":"a","displayName":"a"},"pubKeyCredParams":[]}"#)
        #expect(noChallenge.status == 11)
        #expect(noChallenge.standardError.contains("missing field `challenge`"))

        let badBase64 = try passkey(["webauthn", "get", "--device", "virtual", "--origin", "https://example.org"],
                                    stdin: #"{"challenge":"not+base64/url="}"#)
        #expect(badBase64.status == 11)
        #expect(badBase64.standardError.contains("challenge"))
    }

    @Test func originMustBeSecureAndMayOnlyUseItsOwnRPID() throws {
        let options = WebAuthnFixtures.creationOptions()
        let http = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "http://example.org"], stdin: options)
        #expect(http.status == 11)
        #expect(http.standardError.contains("https"))
        let foreign = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://evil.example"], stdin: options)
        #expect(foreign.status == 11)
        #expect(foreign.standardError.contains("may not use relying party id \"example.org\""))
        let subdomain = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://login.example.org"],
                                    stdin: options)
        #expect(subdomain.status == 0, "a subdomain may use its parent domain: \(subdomain.standardError)")
    }

    @Test func aPlatformOnlySiteIsRefusedBeforeTouching() throws {
        let options = WebAuthnFixtures.creationOptions().replacingOccurrences(
            of: "\"authenticatorSelection\":{", with: "\"authenticatorSelection\":{\"authenticatorAttachment\":\"platform\",")
        let result = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"], stdin: options)
        #expect(result.status == 1)
        #expect(result.standardError.contains("authenticatorAttachment"))
    }

    @Test func noDeviceSaysWhatToDo() throws {
        let result = try passkey(["webauthn", "create", "--origin", "https://example.org"], stdin: WebAuthnFixtures.creationOptions())
        #expect(result.status == 3)
        #expect(result.standardError.contains("--device"))
    }

    @Test func registeringTwiceIsAlreadyRegistered() throws {
        let first = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
                                stdin: WebAuthnFixtures.creationOptions())
        #expect(first.status == 0)
        let id = try #require((try JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [String: Any])?["id"] as? String)
        let again = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org", "--json"],
                                stdin: WebAuthnFixtures.creationOptions(exclude: [id]))
        #expect(again.status == 10)
        let error = try #require((try JSONSerialization.jsonObject(with: Data(again.standardOutput.utf8)) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["kind"] as? String == "already_registered")
        #expect((error["message"] as? String)?.contains("already registered") == true)
    }

    /// A request that needs only a touch (no user verification, nothing stored on the key).
    @Test func declinedAndUntouchedKeysAreTheirOwnErrors() throws {
        let options = WebAuthnFixtures.creationOptions(residentKey: "discouraged", userVerification: "discouraged")
        let denied = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
                                 stdin: options, env: ["PASSKEY_VIRTUAL_PRESENCE": "deny"])
        #expect(denied.status == 4)
        #expect(denied.standardError.contains("declined"))
        let untouched = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
                                    stdin: options, env: ["PASSKEY_VIRTUAL_PRESENCE": "timeout:300"])
        #expect(untouched.status == 5)
        #expect(untouched.standardError.contains("touch"))
        let badPolicy = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
                                    stdin: options, env: ["PASSKEY_VIRTUAL_PRESENCE": "sometimes"])
        #expect(badPolicy.status == 3)
        #expect(badPolicy.standardError.contains("PASSKEY_VIRTUAL_PRESENCE"))
        // A biometric key's fingerprint counts as the touch; a refused finger is its own error.
        let noFinger = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org"],
                                   stdin: WebAuthnFixtures.creationOptions(userVerification: "required"),
                                   env: ["PASSKEY_VIRTUAL_VERIFICATION": "deny"])
        #expect(noFinger.status == 6)
        #expect(noFinger.standardError.contains("user verification failed"))
    }

    /// A PIN-only key (no built-in UV): the PIN comes from --pin-stdin; a
    /// wrong one says how many tries are left; the PIN never shows in output.
    @Test func pinFromStandardInput() throws {
        let env = ["PASSKEY_VIRTUAL_VERIFICATION": "deny"]
        let set = try passkey(["pin", "set", "--device", "virtual", "--pin-stdin"], stdin: "246810\n", env: env)
        #expect(set.status == 0, "\(set.standardError)")
        let optionsFile = harness.home + "/options.json"
        try WebAuthnFixtures.creationOptions(userVerification: "required").write(toFile: optionsFile, atomically: true, encoding: .utf8)
        let pinOnly = ["webauthn", "create", "--device", "virtual", "--origin", "https://example.org", "--options", optionsFile]

        let wrong = try passkey(pinOnly + ["--pin-stdin"], stdin: "111111\n", env: ["PASSKEY_VIRTUAL_VERIFICATION": "deny"])
        #expect(wrong.status == 6)
        #expect(wrong.standardError.contains("wrong PIN: 7 tries left"), "\(wrong.standardError)")
        #expect(!wrong.standardError.contains("111111"))

        let right = try passkey(pinOnly + ["--pin-stdin"], stdin: "246810\n")
        #expect(right.status == 0, "\(right.standardError)")
        #expect(!right.standardOutput.contains("246810"))

        let stdinConflict = try passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org", "--pin-stdin"],
                                        stdin: "246810\n")
        #expect(stdinConflict.status == 11)
        #expect(stdinConflict.standardError.contains("--options FILE"))
    }

    @Test func helpDocumentsExitStatuses() throws {
        let help = try passkey(["--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("EXIT STATUS"))
        #expect(help.standardOutput.contains("6   PIN problem"))
    }
}

/// Without a terminal, the PIN comes from pinentry (here a scripted one
/// speaking the Assuan protocol, as GnuPG's pinentry programs do).
@Suite(.ownThreads) struct PinentryTests {
    @Test func thePINIsAskedThroughPinentry() throws {
        let harness = try AgentHarness()
        let set = try harness.passkey(["pin", "set", "--device", "virtual", "--pin-stdin"], standardInput: "246810\n")
        #expect(set.status == 0, "\(set.standardError)")
        let transcript = harness.home + "/pinentry.log"
        let script = harness.home + "/pinentry"
        try """
        #!/bin/sh
        echo "OK Pleased to meet you"
        while read -r line; do
          echo "$line" | cut -c1-8 >> \(transcript)
          case "$line" in
            GETPIN) echo "D 246810"; echo "OK" ;;
            BYE) echo "OK closing connection"; exit 0 ;;
            *) echo "OK" ;;
          esac
        done
        """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let optionsFile = harness.home + "/options.json"
        try WebAuthnFixtures.creationOptions(userVerification: "required").write(toFile: optionsFile, atomically: true, encoding: .utf8)
        let created = try harness.passkey(["webauthn", "create", "--device", "virtual", "--origin", "https://example.org",
                                           "--options", optionsFile],
                                          extraEnvironment: ["PASSKEY_PINENTRY": script, "PASSKEY_VIRTUAL_VERIFICATION": "deny"])
        #expect(created.status == 0, "\(created.standardError)")
        let asked = (try? String(contentsOfFile: transcript, encoding: .utf8)) ?? ""
        #expect(asked.contains("SETDESC") && asked.contains("GETPIN"), "pinentry was asked: \(asked)")
        #expect(!created.standardOutput.contains("246810"))
    }
}
