import CBOR

/// The enumeration a credential-management "begin" left for its "next" subcommands.
enum PendingEnumeration {
    /// RP IDs still to list.
    case relyingParties([String])
    /// Credential ids still to list.
    case credentials([[UInt8]])
}

/// authenticatorCredentialManagement (0x0A, and the 0x41 preview command
/// libfido2 1.12 always sends; CTAP 2.1 §6.8).
///
/// Request keys: 1 subCommand · 2 subCommandParams · 3 pinUvAuthProtocol · 4 pinUvAuthParam.
/// pinUvAuthParam = authenticate(token, subCommand ‖ CBOR(subCommandParams)); the
/// parameters are re-encoded canonically, as CTAP2 platforms send them.
extension AuthenticatorEngine {
    private enum SubCommand: UInt64 {
        case getCredsMetadata = 0x01
        case enumerateRPsBegin = 0x02
        case enumerateRPsGetNextRP = 0x03
        case enumerateCredentialsBegin = 0x04
        case enumerateCredentialsGetNextCredential = 0x05
        case deleteCredential = 0x06
        case updateUserInformation = 0x07
    }

    func credentialManagement(_ request: RequestMap) throws(CTAPStatus) -> CBOR? {
        let number = try request.requiredUnsigned(1)
        let parameters = try request.map(2)
        let pinUvAuthParam = try request.bytes(4)
        // Only the matching "next" subcommand may continue an enumeration.
        let pending = pendingEnumeration
        pendingEnumeration = nil
        guard let subCommand = SubCommand(rawValue: number) else { throw .invalidSubcommand }

        switch subCommand {
        case .enumerateRPsGetNextRP, .enumerateCredentialsGetNextCredential:
            break
        default:
            guard let pinUvAuthParam else { throw .pinUvAuthTokenRequired }
            guard let version = try PinUvAuthProtocol.read(request, key: 3) else { throw .missingParameter }
            var message: [UInt8] = [UInt8(number)]
            request.raw(2)?.encode(into: &message)
            guard token.verify(message: message, param: pinUvAuthParam, protocol: version) else {
                throw .pinAuthInvalid
            }
            try token.authorize(.credentialManagement, rpId: nil)
        }

        switch subCommand {
        case .getCredsMetadata:
            try token.requireNoRPBinding()
            return [1: .unsigned(UInt64(state.credentials.count)),
                    2: .unsigned(UInt64(AuthenticatorState.maximumDiscoverableCredentials - state.credentials.count))]

        case .enumerateRPsBegin:
            try token.requireNoRPBinding()
            let rpIds = Array(Set(state.credentials.map(\.rpId))).sorted()
            guard let first = rpIds.first else { throw .noCredentials }
            if rpIds.count > 1 { pendingEnumeration = .relyingParties(Array(rpIds.dropFirst())) }
            var response = relyingPartyEntry(first)
            response[5] = .unsigned(UInt64(rpIds.count))
            return .map(response)

        case .enumerateRPsGetNextRP:
            guard case .relyingParties(var remaining)? = pending, !remaining.isEmpty else { throw .notAllowed }
            let next = remaining.removeFirst()
            if !remaining.isEmpty { pendingEnumeration = .relyingParties(remaining) }
            return .map(relyingPartyEntry(next))

        case .enumerateCredentialsBegin:
            guard let parameters else { throw .missingParameter }
            let rpIdHash = try parameters.requiredBytes(1)
            try token.requireRPBinding(allowing: rpIdHash)
            let credentials = state.credentials.filter { sha256($0.rpId) == rpIdHash }.reversed()
            guard let first = credentials.first else { throw .noCredentials }
            if credentials.count > 1 { pendingEnumeration = .credentials(credentials.dropFirst().map(\.id)) }
            var response = credentialEntry(first)
            response[9] = .unsigned(UInt64(credentials.count))
            return .map(response)

        case .enumerateCredentialsGetNextCredential:
            guard case .credentials(var remaining)? = pending, !remaining.isEmpty else { throw .notAllowed }
            let id = remaining.removeFirst()
            if !remaining.isEmpty { pendingEnumeration = .credentials(remaining) }
            guard let credential = state.credentials.first(where: { $0.id == id }) else { throw .notAllowed }
            return .map(credentialEntry(credential))

        case .deleteCredential:
            let credential = try credentialNamed(in: parameters)
            try token.requireRPBinding(allowing: sha256(credential.rpId))
            try commit { $0.credentials.removeAll { $0.id == credential.id } }
            return nil

        case .updateUserInformation:
            let credential = try credentialNamed(in: parameters)
            guard let parameters else { throw .missingParameter }
            let user = try Self.parseUser(try parameters.requiredMap(3))
            try token.requireRPBinding(allowing: sha256(credential.rpId))
            guard user.id == credential.user.id else { throw .invalidParameter }
            try commit { state in
                guard let index = state.credentials.firstIndex(where: { $0.id == credential.id }) else { return }
                state.credentials[index].user = user
            }
            return nil
        }
    }

    /// subCommandParams key 2: a credential descriptor naming a stored credential.
    private func credentialNamed(in parameters: RequestMap?) throws(CTAPStatus) -> DiscoverableCredential {
        guard let parameters else { throw .missingParameter }
        let descriptor = try parameters.requiredMap(2)
        let id = try descriptor.requiredBytes("id")
        guard let credential = state.credentials.first(where: { $0.id == id }) else { throw .noCredentials }
        return credential
    }

    private func relyingPartyEntry(_ rpId: String) -> [CBOR: CBOR] {
        var entity: [CBOR: CBOR] = ["id": .text(rpId)]
        if let name = state.credentials.first(where: { $0.rpId == rpId })?.rpName { entity["name"] = .text(name) }
        return [3: .map(entity), 4: .bytes(sha256(rpId))]
    }

    private func credentialEntry(_ credential: DiscoverableCredential) -> [CBOR: CBOR] {
        [6: credential.user.cbor(includingNames: true),
         7: ["id": .bytes(credential.id), "type": "public-key"],
         8: credential.key.publicKey.cbor,
         0x0A: .unsigned(UInt64(credential.credProtect.rawValue))]
    }
}
