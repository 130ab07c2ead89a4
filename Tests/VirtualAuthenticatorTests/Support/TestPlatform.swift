import CBOR
import Crypto
import CryptoExtras
import Foundation
import Testing
import VirtualAuthenticator
import WebAuthn

/// A CTAP2 response split into its status byte and CBOR body.
struct CTAPResponse {
    let status: UInt8
    let body: CBOR?

    var isOK: Bool { status == 0 }
}

enum TestFailure: Error, CustomStringConvertible {
    case unexpected(String)
    var description: String {
        switch self { case .unexpected(let what): return what }
    }
}

/// The platform (client) side of CTAP2, written independently of the
/// authenticator's code with swift-crypto, as libfido2 or python-fido2 would.
final class TestPlatform {
    let authenticator: CTAP2Authenticator

    init(_ configuration: VirtualAuthenticatorConfiguration = VirtualAuthenticatorConfiguration()) throws {
        authenticator = try CTAP2Authenticator(configuration: configuration)
    }

    init(authenticator: CTAP2Authenticator) {
        self.authenticator = authenticator
    }

    /// Sends command ‖ CBOR(parameters); checks the reply body is canonical CBOR.
    func send(_ command: UInt8, _ parameters: CBOR? = nil, control: RequestControl = RequestControl()) throws -> CTAPResponse {
        var request = [command]
        parameters?.encode(into: &request)
        return try Self.parse(authenticator.process(request, control: control))
    }

    static func parse(_ response: [UInt8]) throws -> CTAPResponse {
        guard let status = response.first else { throw TestFailure.unexpected("empty CTAP response") }
        guard response.count > 1 else { return CTAPResponse(status: status, body: nil) }
        let body = try CBOR.decode(Array(response.dropFirst()), limits: CBORDecodingLimits(requireCanonical: true))
        return CTAPResponse(status: status, body: body)
    }

    // MARK: makeCredential / getAssertion

    struct Registration {
        let credentialId: [UInt8]
        let publicKey: COSEKey
        let format: String
        let statement: CBOR
        let rawAuthenticatorData: [UInt8]
        let authenticatorData: AuthenticatorData
        let clientDataHash: [UInt8]
    }

    static func makeCredentialParameters(
        rpId: String = "example.com", rpName: String? = "Example",
        userId: [UInt8] = [1, 2, 3, 4], userName: String? = "alice", displayName: String? = "Alice Liddell",
        algorithms: [Int] = [-7], clientDataHash: [UInt8] = Array(SHA256.hash(data: Array("register".utf8))),
        residentKey: Bool? = nil, userVerification: Bool? = nil, userPresence: Bool? = nil,
        excludeList: [[UInt8]] = [], extensions: [CBOR: CBOR]? = nil,
        pinUvAuthParam: [UInt8]? = nil, pinUvAuthProtocol: UInt8? = nil
    ) -> CBOR {
        var rp: [CBOR: CBOR] = ["id": .text(rpId)]
        if let rpName { rp["name"] = .text(rpName) }
        var user: [CBOR: CBOR] = ["id": .bytes(userId)]
        if let userName { user["name"] = .text(userName) }
        if let displayName { user["displayName"] = .text(displayName) }
        var map: [CBOR: CBOR] = [
            1: .bytes(clientDataHash),
            2: .map(rp),
            3: .map(user),
            4: .array(algorithms.map { ["alg": .int($0), "type": "public-key"] }),
        ]
        if !excludeList.isEmpty { map[5] = .array(excludeList.map { ["id": .bytes($0), "type": "public-key"] }) }
        if let extensions { map[6] = .map(extensions) }
        var options: [CBOR: CBOR] = [:]
        if let residentKey { options["rk"] = .bool(residentKey) }
        if let userVerification { options["uv"] = .bool(userVerification) }
        if let userPresence { options["up"] = .bool(userPresence) }
        if !options.isEmpty { map[7] = .map(options) }
        if let pinUvAuthParam { map[8] = .bytes(pinUvAuthParam) }
        if let pinUvAuthProtocol { map[9] = .unsigned(UInt64(pinUvAuthProtocol)) }
        return .map(map)
    }

    /// makeCredential that must succeed; checks what every registration must satisfy.
    func register(_ parameters: CBOR) throws -> Registration {
        let response = try send(0x01, parameters)
        guard response.isOK, let body = response.body else {
            throw TestFailure.unexpected("makeCredential failed with status 0x\(String(response.status, radix: 16))")
        }
        guard let format = body[1]?.textValue, let raw = body[2]?.bytesValue, let statement = body[3] else {
            throw TestFailure.unexpected("makeCredential reply lacks fmt/authData/attStmt")
        }
        let authenticatorData = try AuthenticatorData(bytes: raw)
        guard let attested = authenticatorData.attestedCredentialData else {
            throw TestFailure.unexpected("no attested credential data")
        }
        return Registration(credentialId: attested.credentialId, publicKey: attested.publicKey, format: format,
                            statement: statement, rawAuthenticatorData: raw, authenticatorData: authenticatorData,
                            clientDataHash: parameters[1]?.bytesValue ?? [])
    }

    struct Assertion {
        let credentialId: [UInt8]
        let rawAuthenticatorData: [UInt8]
        let authenticatorData: AuthenticatorData
        let signature: [UInt8]
        let user: CBOR?
        let numberOfCredentials: UInt64?
    }

    static func getAssertionParameters(
        rpId: String = "example.com", clientDataHash: [UInt8] = Array(SHA256.hash(data: Array("sign in".utf8))),
        allowList: [[UInt8]] = [], extensions: [CBOR: CBOR]? = nil,
        userPresence: Bool? = nil, userVerification: Bool? = nil,
        pinUvAuthParam: [UInt8]? = nil, pinUvAuthProtocol: UInt8? = nil
    ) -> CBOR {
        var map: [CBOR: CBOR] = [1: .text(rpId), 2: .bytes(clientDataHash)]
        if !allowList.isEmpty { map[3] = .array(allowList.map { ["id": .bytes($0), "type": "public-key"] }) }
        if let extensions { map[4] = .map(extensions) }
        var options: [CBOR: CBOR] = [:]
        if let userPresence { options["up"] = .bool(userPresence) }
        if let userVerification { options["uv"] = .bool(userVerification) }
        if !options.isEmpty { map[5] = .map(options) }
        if let pinUvAuthParam { map[6] = .bytes(pinUvAuthParam) }
        if let pinUvAuthProtocol { map[7] = .unsigned(UInt64(pinUvAuthProtocol)) }
        return .map(map)
    }

    static func parseAssertion(_ response: CTAPResponse) throws -> Assertion {
        guard response.isOK, let body = response.body else {
            throw TestFailure.unexpected("getAssertion failed with status 0x\(String(response.status, radix: 16))")
        }
        guard let id = body[1]?["id"]?.bytesValue, body[1]?["type"]?.textValue == "public-key",
              let raw = body[2]?.bytesValue, let signature = body[3]?.bytesValue else {
            throw TestFailure.unexpected("getAssertion reply lacks credential/authData/signature")
        }
        return Assertion(credentialId: id, rawAuthenticatorData: raw, authenticatorData: try AuthenticatorData(bytes: raw),
                         signature: signature, user: body[4], numberOfCredentials: body[5]?.uintValue)
    }

    func authenticate(_ parameters: CBOR) throws -> Assertion {
        try Self.parseAssertion(try send(0x02, parameters))
    }

    // MARK: clientPIN

    func pinSession(_ version: UInt8) throws -> PinSession {
        let response = try send(0x06, [1: .unsigned(UInt64(version)), 2: 2])
        guard response.isOK, let key = response.body?[1] else {
            throw TestFailure.unexpected("getKeyAgreement failed with 0x\(String(response.status, radix: 16))")
        }
        return try PinSession(version: version, authenticatorKey: key)
    }

    func setPIN(_ pin: String, version: UInt8) throws -> UInt8 {
        let session = try pinSession(version)
        let newPinEnc = try session.encrypt(PinSession.padded(pin))
        return try send(0x06, [1: .unsigned(UInt64(version)), 2: 3, 3: session.platformCOSEKey,
                               4: .bytes(session.authenticate(newPinEnc)), 5: .bytes(newPinEnc)]).status
    }

    func changePIN(from old: String, to new: String, version: UInt8) throws -> UInt8 {
        let session = try pinSession(version)
        let newPinEnc = try session.encrypt(PinSession.padded(new))
        let pinHashEnc = try session.encrypt(PinSession.pinHash(old))
        return try send(0x06, [1: .unsigned(UInt64(version)), 2: 4, 3: session.platformCOSEKey,
                               4: .bytes(session.authenticate(newPinEnc + pinHashEnc)),
                               5: .bytes(newPinEnc), 6: .bytes(pinHashEnc)]).status
    }

    /// getPinUvAuthTokenUsingPinWithPermissions (0x09); the token, or the failing status.
    func pinToken(_ pin: String, version: UInt8, permissions: UInt8 = 0x03,
                  rpId: String? = "example.com") throws -> Result<[UInt8], CTAPStatusCode> {
        let session = try pinSession(version)
        var request: [CBOR: CBOR] = [1: .unsigned(UInt64(version)), 2: 9, 3: session.platformCOSEKey,
                                     6: .bytes(try session.encrypt(PinSession.pinHash(pin))),
                                     9: .unsigned(UInt64(permissions))]
        if let rpId { request[0x0A] = .text(rpId) }
        let response = try send(0x06, .map(request))
        guard response.isOK, let encrypted = response.body?[2]?.bytesValue else {
            return .failure(CTAPStatusCode(response.status))
        }
        return .success(try session.decrypt(encrypted))
    }

    /// getPinUvAuthTokenUsingUvWithPermissions (0x06).
    func uvToken(version: UInt8, permissions: UInt8 = 0x03,
                 rpId: String? = "example.com") throws -> Result<[UInt8], CTAPStatusCode> {
        let session = try pinSession(version)
        var request: [CBOR: CBOR] = [1: .unsigned(UInt64(version)), 2: 6, 3: session.platformCOSEKey,
                                     9: .unsigned(UInt64(permissions))]
        if let rpId { request[0x0A] = .text(rpId) }
        let response = try send(0x06, .map(request))
        guard response.isOK, let encrypted = response.body?[2]?.bytesValue else {
            return .failure(CTAPStatusCode(response.status))
        }
        return .success(try session.decrypt(encrypted))
    }

    func pinRetries() throws -> (retries: UInt64?, powerCycleState: Bool?) {
        let response = try send(0x06, [1: 1, 2: 1])
        return (response.body?[3]?.uintValue, response.body?[4]?.boolValue)
    }

    func uvRetries() throws -> UInt64? {
        try send(0x06, [1: 1, 2: 7]).body?[5]?.uintValue
    }
}

/// A status byte as an Error, so `Result` can carry it.
struct CTAPStatusCode: Error, Equatable {
    let value: UInt8
    init(_ value: UInt8) { self.value = value }
}

/// The platform half of PIN/UV auth protocol 1 or 2 for one key agreement.
struct PinSession {
    let version: UInt8
    let platformKey: P256.KeyAgreement.PrivateKey
    let hmacKey: SymmetricKey
    let aesKey: SymmetricKey

    init(version: UInt8, authenticatorKey: CBOR) throws {
        guard authenticatorKey[1]?.intValue == 2, authenticatorKey[3]?.intValue == -25,
              authenticatorKey[-1]?.intValue == 1,
              let x = authenticatorKey[-2]?.bytesValue, let y = authenticatorKey[-3]?.bytesValue else {
            throw TestFailure.unexpected("getKeyAgreement key is not a COSE P-256 key with alg -25")
        }
        let theirs = try P256.KeyAgreement.PublicKey(rawRepresentation: x + y)
        let mine = P256.KeyAgreement.PrivateKey()
        let z = try mine.sharedSecretFromKeyAgreement(with: theirs).withUnsafeBytes { Array($0) }
        self.version = version
        platformKey = mine
        if version == 1 {
            let key = SymmetricKey(data: Array(SHA256.hash(data: z)))
            hmacKey = key
            aesKey = key
        } else {
            let salt = [UInt8](repeating: 0, count: 32)
            hmacKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: z), salt: salt,
                                             info: Array("CTAP2 HMAC key".utf8), outputByteCount: 32)
            aesKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: z), salt: salt,
                                            info: Array("CTAP2 AES key".utf8), outputByteCount: 32)
        }
    }

    var platformCOSEKey: CBOR {
        let raw = [UInt8](platformKey.publicKey.rawRepresentation)
        return [1: 2, 3: -25, -1: 1, -2: .bytes(Array(raw[0..<32])), -3: .bytes(Array(raw[32..<64]))]
    }

    func encrypt(_ plaintext: [UInt8]) throws -> [UInt8] {
        let iv: [UInt8] = version == 1 ? [UInt8](repeating: 0, count: 16) : (0..<16).map { _ in UInt8.random(in: 0...255) }
        let ciphertext = [UInt8](try AES._CBC.encrypt(plaintext, using: aesKey,
                                                        iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
        return version == 1 ? ciphertext : iv + ciphertext
    }

    func decrypt(_ ciphertext: [UInt8]) throws -> [UInt8] {
        let iv = version == 1 ? [UInt8](repeating: 0, count: 16) : Array(ciphertext.prefix(16))
        let body = version == 1 ? ciphertext : Array(ciphertext.dropFirst(16))
        return [UInt8](try AES._CBC.decrypt(body, using: aesKey, iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
    }

    func authenticate(_ message: [UInt8]) -> [UInt8] {
        Self.authenticate(key: hmacKey, message: message, version: version)
    }

    static func authenticate(key: SymmetricKey, message: [UInt8], version: UInt8) -> [UInt8] {
        let mac = Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
        return version == 1 ? Array(mac.prefix(16)) : mac
    }

    /// pinUvAuthParam for a command, keyed with a pinUvAuthToken.
    static func authenticate(token: [UInt8], message: [UInt8], version: UInt8) -> [UInt8] {
        authenticate(key: SymmetricKey(data: token), message: message, version: version)
    }

    static func padded(_ pin: String) -> [UInt8] {
        let bytes = Array(pin.utf8)
        return bytes + [UInt8](repeating: 0, count: max(0, 64 - bytes.count))
    }

    static func pinHash(_ pin: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(pin.utf8)).prefix(16))
    }
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("vauth-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
