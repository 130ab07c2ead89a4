import CBOR
import Foundation
import Locking
import Testing
import TestSupport
@testable import VirtualAuthenticator

@Suite("State file", .ownThreads)
struct StateTests {
    private func configuration(in directory: URL) -> VirtualAuthenticatorConfiguration {
        VirtualAuthenticatorConfiguration(statePath: directory.appendingPathComponent("keys/state.json").path)
    }

    @Test("credentials, PIN and retries survive a power cycle; the file is 0600 in a 0700 directory")
    func persistsAcrossInstances() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = configuration(in: directory)
        let first = try TestPlatform(configuration)
        let resident = try first.register(TestPlatform.makeCredentialParameters(residentKey: true))
        let wrapped = try first.register(TestPlatform.makeCredentialParameters(userId: [5]))
        #expect(try first.setPIN("246810", version: 2) == 0)
        _ = try first.pinToken("000000", version: 2)

        let path = try #require(configuration.statePath)
        let fileMode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        let directoryMode = try FileManager.default.attributesOfItem(
            atPath: (path as NSString).deletingLastPathComponent)[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
        #expect(directoryMode == 0o700)
        let contents = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!contents.contains("246810"))

        let second = try TestPlatform(configuration)
        #expect(try second.authenticate(TestPlatform.getAssertionParameters()).credentialId == resident.credentialId)
        #expect(try second.authenticate(TestPlatform.getAssertionParameters(allowList: [wrapped.credentialId]))
                .credentialId == wrapped.credentialId)
        #expect(try second.pinRetries().retries == 7)
        #expect(try second.pinToken("246810", version: 2).get().count == 32)
        #expect(try second.send(0x04).body?[4]?["clientPin"] == true)
    }

    @Test("the signature counter only increases across instances")
    func counterMonotonicAcrossInstances() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = configuration(in: directory)
        var platform = try TestPlatform(configuration)
        let registration = try platform.register(TestPlatform.makeCredentialParameters())
        var last = registration.authenticatorData.signCount
        for _ in 0..<4 {
            platform = try TestPlatform(configuration)
            for _ in 0..<3 {
                let count = try platform.authenticate(TestPlatform.getAssertionParameters(
                    allowList: [registration.credentialId])).authenticatorData.signCount
                #expect(count > last)
                last = count
            }
        }
    }

    @Test("authenticators created at once on a new state file share one master secret")
    func concurrentFirstUse() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = configuration(in: directory)
        let ids = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for index in 0..<8 {
                group.addTask {
                    let platform = try TestPlatform(configuration)
                    return try platform.register(TestPlatform.makeCredentialParameters(userId: [UInt8(index)])).credentialId
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let later = try TestPlatform(configuration)
        for id in ids {
            #expect(try later.authenticate(TestPlatform.getAssertionParameters(allowList: [id])).credentialId == id)
        }
    }

    @Test("a damaged state file is a typed error naming the file, and is left alone")
    func corruptFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.json").path
        let damaged: [(String, String)] = [
            ("{ not json", "not valid JSON"),
            ("", "empty"),
            (#"{"format": 1}"#, "masterSecret"),
            (#"{"format": 7, "masterSecret": "AA==", "signatureCounterCeiling": 0, "pinRetries": 8, "uvRetries": 8, "nextCreationOrder": 0, "discoverableCredentials": []}"#, "version 7"),
            (#"{"format": 1, "masterSecret": "AA==", "signatureCounterCeiling": 0, "pinRetries": 8, "uvRetries": 8, "nextCreationOrder": 0, "discoverableCredentials": []}"#, "masterSecret"),
        ]
        for (contents, hint) in damaged {
            try contents.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)  // the state holds private keys: only a private file is read
            do {
                _ = try CTAP2Authenticator(configuration: VirtualAuthenticatorConfiguration(statePath: path))
                Issue.record("a damaged state file was accepted")
            } catch {
                #expect(error.description.contains(path))
                #expect(error.description.contains(hint))
                switch error {
                case .stateCorrupt, .stateFormatUnsupported: break
                default: Issue.record("unexpected error \(error)")
                }
            }
            #expect(try String(contentsOfFile: path, encoding: .utf8) == contents)
        }
    }

    @Test("an unreadable state file is a typed error")
    func unreadableFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A directory where the file should be cannot be read as one.
        let path = directory.appendingPathComponent("state.json").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let error = #expect(throws: VirtualAuthenticatorError.self) {
            _ = try CTAP2Authenticator(configuration: VirtualAuthenticatorConfiguration(statePath: path))
        }
        #expect(error?.description.contains(path) == true)
        switch error {
        case .stateUnreadable?, .stateCorrupt?: break
        default: Issue.record("unexpected error \(String(describing: error))")
        }
    }

    @Test("an in-memory authenticator writes nothing and forgets everything")
    func inMemory() throws {
        let first = try TestPlatform()
        _ = try first.register(TestPlatform.makeCredentialParameters(residentKey: true))
        let second = try TestPlatform()
        #expect(try second.send(0x02, TestPlatform.getAssertionParameters()).status == CTAPStatus.noCredentials.rawValue)
    }

    @Test("reset within the window wipes credentials and PIN; outside it is NOT_ALLOWED")
    func reset() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = configuration(in: directory)
        let platform = try TestPlatform(configuration)
        let wrapped = try platform.register(TestPlatform.makeCredentialParameters())
        _ = try platform.register(TestPlatform.makeCredentialParameters(residentKey: true))
        #expect(try platform.setPIN("123456", version: 2) == 0)
        let countBefore = try platform.authenticate(TestPlatform.getAssertionParameters(
            allowList: [wrapped.credentialId])).authenticatorData.signCount

        platform.authenticator.presencePolicy = .deny
        #expect(try platform.send(0x07).status == CTAPStatus.operationDenied.rawValue)
        platform.authenticator.presencePolicy = .approve
        #expect(try platform.send(0x07).isOK)
        #expect(try platform.send(0x04).body?[4]?["clientPin"] == false)
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters()).status == CTAPStatus.noCredentials.rawValue)
        // Old non-discoverable ids die with the master secret.
        #expect(try platform.send(0x02, TestPlatform.getAssertionParameters(allowList: [wrapped.credentialId])).status
                == CTAPStatus.noCredentials.rawValue)
        // The counter does not go back.
        let fresh = try platform.register(TestPlatform.makeCredentialParameters())
        #expect(fresh.authenticatorData.signCount > countBefore)
        // The reset persisted.
        let after = try TestPlatform(configuration)
        #expect(try after.send(0x04).body?[4]?["clientPin"] == false)

        // A window of 0 ms, and a clock one nanosecond past power-up.
        var late = configuration
        late.resetWindowMilliseconds = 0
        let clock = Locked<UInt64>(1_000_000_000)
        let expired = TestPlatform(authenticator: try CTAP2Authenticator(configuration: late, store: nil,
                                                                         resetClock: { clock.withLock { $0 } }))
        clock.withLock { $0 += 1 }
        #expect(try expired.send(0x07).status == CTAPStatus.notAllowed.rawValue)
    }
}
