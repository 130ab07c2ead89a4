import CBOR
import Testing
import TestSupport
import VirtualAuthenticator

@Suite("Malformed requests", .ownThreads)
struct MalformedInputTests {
    @Test("malformed CBOR: INVALID_CBOR")
    func invalidCBOR() throws {
        let platform = try TestPlatform()
        let invalid = [CTAPStatus.invalidCBOR.rawValue]
        #expect(platform.authenticator.process([0x01, 0xA1]) == invalid)             // truncated map
        #expect(platform.authenticator.process([0x01, 0xFF]) == invalid)             // stray break
        #expect(platform.authenticator.process([0x01, 0xA0, 0x00]) == invalid)       // trailing byte
        #expect(platform.authenticator.process([0x02, 0xF9, 0x3C, 0x00]) == invalid) // a float
        #expect(platform.authenticator.process([0x02, 0xC1, 0x00]) == invalid)       // a tag
        // Nesting deeper than CTAP's four levels.
        #expect(platform.authenticator.process([0x01, 0xA1, 0x01, 0x81, 0x81, 0x81, 0x81, 0x00]) == invalid)
    }

    @Test("members of the wrong type: CBOR_UNEXPECTED_TYPE")
    func wrongTypes() throws {
        let platform = try TestPlatform()
        let unexpected = CTAPStatus.cborUnexpectedType.rawValue
        #expect(try platform.send(0x01, [1, 2, 3]).status == unexpected)
        var request = try #require(TestPlatform.makeCredentialParameters().mapValue)
        request[1] = "not bytes"
        #expect(try platform.send(0x01, .map(request)).status == unexpected)
        request = try #require(TestPlatform.makeCredentialParameters(residentKey: true).mapValue)
        request[7] = ["rk": 1]
        #expect(try platform.send(0x01, .map(request)).status == unexpected)
        #expect(try platform.send(0x02, [1: 42, 2: .bytes([0])]).status == unexpected)
        #expect(try platform.send(0x06, [1: 2, 2: "one"]).status == unexpected)
    }

    @Test("missing required members: MISSING_PARAMETER")
    func missingParameters() throws {
        let platform = try TestPlatform()
        let missing = CTAPStatus.missingParameter.rawValue
        for key in [1, 2, 3, 4] {
            var request = try #require(TestPlatform.makeCredentialParameters().mapValue)
            request[.int(key)] = nil
            #expect(try platform.send(0x01, .map(request)).status == missing)
        }
        #expect(try platform.send(0x01).status == missing)
        #expect(try platform.send(0x02, [1: "example.com"]).status == missing)
        #expect(try platform.send(0x06, [1: 2]).status == missing)
        #expect(try platform.send(0x06, [1: 2, 2: 3]).status == missing)
    }

    @Test("unknown and empty commands")
    func unknownCommands() throws {
        let platform = try TestPlatform()
        #expect(platform.authenticator.process([]) == [CTAPStatus.invalidLength.rawValue])
        #expect(platform.authenticator.process([0x55]) == [CTAPStatus.invalidCommand.rawValue])
        #expect(platform.authenticator.process([0x03]) == [CTAPStatus.invalidCommand.rawValue])
    }

    @Test("random requests never crash and always get a status byte")
    func fuzz() throws {
        let platform = try TestPlatform()
        var generator = SystemRandomNumberGenerator()
        let commands: [UInt8] = [0x01, 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0B, 0x41, 0x55]
        for _ in 0..<3000 {
            let length = Int.random(in: 0...80, using: &generator)
            var request = [commands.randomElement(using: &generator) ?? 0x01]
            // Mostly maps, so the parsers get exercised beyond the first byte.
            if Bool.random(using: &generator) { request.append(0xA0 | UInt8.random(in: 1...5, using: &generator)) }
            request += (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(!platform.authenticator.process(request).isEmpty)
        }
        // Structured but wrong: every member of makeCredential replaced by each CBOR kind.
        let kinds: [CBOR] = [0, -1, .bytes([]), "", [], [:], true, .null]
        let base = try #require(TestPlatform.makeCredentialParameters(extensions: ["hmac-secret": true]).mapValue)
        for key in base.keys {
            for kind in kinds {
                var request = base
                request[key] = kind
                #expect(!(try platform.send(0x01, .map(request)).status == 0 && kind == .null))
            }
        }
        #expect(try platform.send(0x04).isOK)
    }
}
