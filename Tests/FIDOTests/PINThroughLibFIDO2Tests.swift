import FIDO
import FIDOTestSupport
import Foundation
import Testing
import TestSupport
import VirtualAuthenticator

/// PIN handling through libfido2's ClientPIN code (protocol 2, which libfido2 prefers).
@Suite(.ownThreads) struct PINThroughLibFIDO2Tests {
    @Test func setChangeAndUseThePIN() throws {
        let key = try SoftwareKey(VirtualAuthenticatorConfiguration(builtInUV: false))
        #expect(key.device.info.hasPIN == false)
        #expect(key.device.info.supportsPIN)
        try key.device.setPIN("1234")
        let device = try key.reopened()
        #expect(device.info.hasPIN)
        #expect(try device.pinRetries() == 8)
        try device.changePIN(from: "1234", to: "4321")
        #expect(throws: FIDOError.pinPolicyViolation) { try device.changePIN(from: "4321", to: "12") }

        // UV through the PIN: the UV flag is set.
        let request = MakeCredentialRequest(clientDataHash: hash("a"), rpId: "example.org", userId: [1],
                                            residentKey: true, userVerification: true)
        let created = try device.makeCredential(request, pin: "4321")
        #expect(try AuthenticatorData_flags(created.authenticatorData).contains(.userVerified))
        // A discoverable credential on a key with a PIN needs it.
        #expect(throws: FIDOError.pinRequired) {
            try device.makeCredential(MakeCredentialRequest(clientDataHash: hash("b"), rpId: "example.org", userId: [2],
                                                            residentKey: true, userVerification: true))
        }
    }

    @Test func wrongPINsCountDownAndBlock() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pin-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = VirtualAuthenticatorConfiguration(statePath: directory.appendingPathComponent("va.json").path,
                                                              builtInUV: false)
        try SoftwareKey(configuration).device.setPIN("123456")
        let request = GetAssertionRequest(rpId: "example.org", clientDataHash: hash("x"), userVerification: true)
        var retries = 8
        // Each "power cycle" (a new instance from the state file) allows three misses before PIN_AUTH_BLOCKED.
        while retries > 0 {
            let key = try SoftwareKey(configuration)
            for attempt in 1...3 where retries > 0 {
                retries -= 1
                do {
                    _ = try key.device.getAssertion(request, pin: "000000")
                    Issue.record("a wrong PIN was accepted")
                } catch .pinInvalid(let left) {
                    #expect(left == retries)
                    #expect(attempt < 3 && retries > 0)
                } catch .pinAuthBlocked {
                    #expect(attempt == 3)
                } catch .pinBlocked {
                    #expect(retries == 0)
                }
            }
            if retries > 0 {
                // Still blocked until the power cycle, even with the right PIN.
                #expect(throws: FIDOError.pinAuthBlocked) { try key.device.getAssertion(request, pin: "123456") }
            }
        }
        let blocked = try SoftwareKey(configuration)
        #expect(throws: FIDOError.pinBlocked) { try blocked.device.getAssertion(request, pin: "123456") }
        #expect(try blocked.device.pinRetries() == 0)
    }

    @Test func wrongPINMessageSaysTriesLeft() {
        #expect(FIDOError.pinInvalid(retriesLeft: 2).description == "wrong PIN: 2 tries left before the key locks")
        #expect(FIDOError.pinInvalid(retriesLeft: 1).description == "wrong PIN: 1 try left before the key locks")
    }
}

import WebAuthn

func AuthenticatorData_flags(_ bytes: [UInt8]) throws -> AuthenticatorData.Flags {
    try AuthenticatorData(bytes: bytes).flags
}
