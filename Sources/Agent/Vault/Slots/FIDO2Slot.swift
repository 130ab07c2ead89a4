import Crypto
import FIDO
import Interaction
import WebAuthn

/// How a `fido2` slot is made on a given key — decided the way
/// systemd-cryptenroll decides, preferring the strongest the key offers:
/// built-in user verification (a fingerprint) if the key has it, else its
/// PIN if one is set (collected before the credential is made, because
/// hmac-secret answers differently with and without UV), else a touch alone.
public struct FIDO2EnrolmentPlan: Sendable, Equatable {
    public var userVerification: Bool
    /// The PIN must be collected before enrolment.
    public var needsPIN: Bool
    /// credProtect 2 (userVerificationOptionalWithCredentialIDList) when the
    /// key offers it: the credential is used only by whoever names its id,
    /// and a silent probe still finds which key holds it.
    public var credProtect: Int?

    public init(for info: AuthenticatorInfo) throws(VaultError) {
        guard info.supportsHMACSecret else {
            throw .securityKeyUnsuitable("this security key does not support the hmac-secret extension, which a fido2 slot needs")
        }
        userVerification = info.hasBuiltInUV || info.hasPIN
        needsPIN = !info.hasBuiltInUV && info.hasPIN
        credProtect = info.supportsCredProtect ? 2 : nil
    }
}

/// The device side of `fido2` slots: enrolment, finding which slot a key
/// holds, and opening one. Each runs on an open `FIDODevice`, one request
/// at a time (call them inside `FIDODevice.perform`).
public enum FIDO2Slot {
    /// Makes a non-discoverable credential with hmac-secret, gets its secret
    /// for a new random salt (a second touch), and wraps `dataKey` with it.
    public static func enrol(on device: FIDODevice, plan: FIDO2EnrolmentPlan, pin: String?, target: EnrolmentTarget,
                             progress: (@Sendable (ProgressStage) -> Void)?) throws(VaultError) -> KeySlot {
        let pinToUse = plan.userVerification ? pin : nil
        if plan.needsPIN && pinToUse == nil { throw .securityKey(.pinRequired) }
        let request = MakeCredentialRequest(
            clientDataHash: Array(SHA256.hash(data: randomBytes(32))), rpId: VaultFormat.fido2RelyingParty,
            rpName: "passkey-agent vault", userId: randomBytes(16), userName: "vault",
            userDisplayName: "passkey-agent vault", residentKey: false, userVerification: plan.userVerification,
            credProtect: plan.credProtect, hmacSecret: true)
        let credential: MakeCredentialResult
        do {
            credential = try device.makeCredential(request, pin: pinToUse, progress: progress)
        } catch {
            throw .securityKey(error)
        }
        let parameters = FIDO2SlotParameters(
            userVerification: plan.userVerification, credProtect: UInt8(plan.credProtect ?? 0),
            aaguid: device.info.aaguid.count == 16 ? device.info.aaguid : [UInt8](repeating: 0, count: 16),
            relyingParty: VaultFormat.fido2RelyingParty, credentialId: credential.credentialId,
            hmacSalt: randomBytes(32), derivation: .fresh(info: VaultFormat.fido2Info),
            deviceLabel: device.descriptor.product.truncatedToUTF8Bytes(255))
        guard !parameters.credentialId.isEmpty, parameters.credentialId.count <= Int(UInt16.max) else {
            throw .securityKeyUnsuitable("the security key returned a credential id of \(parameters.credentialId.count) bytes")
        }
        let secret = try hmacSecret(parameters, on: device, pin: pinToUse, progress: progress)
        let wrapped = try WrappedDataKey.wrap(target.dataKey, with: parameters.derivation.wrappingKey(from: secret),
                                              aad: KeySlot.aad(vaultId: target.vaultId, slotId: target.slotId, kind: .fido2))
        return KeySlot(id: target.slotId, protector: .fido2(parameters), wrappedKey: wrapped)
    }

    /// Which of `slots` (fido2 ones) the key holds, asked without a touch or
    /// UV (an assertion with up=false), as systemd-cryptenroll's pre-flight does.
    public static func find(on device: FIDODevice, among slots: [KeySlot]) throws(VaultError) -> KeySlot {
        let candidates = slots.compactMap { slot -> (KeySlot, FIDO2SlotParameters)? in
            if case .fido2(let parameters) = slot.protector { return (slot, parameters) }
            return nil
        }
        let chunk = max(1, device.info.maxCredentialCountInList)
        for relyingParty in Set(candidates.map(\.1.relyingParty)).sorted() {
            let forParty = candidates.filter { $0.1.relyingParty == relyingParty }
            for start in stride(from: 0, to: forParty.count, by: chunk) {
                let group = forParty[start..<min(start + chunk, forParty.count)]
                let probe = GetAssertionRequest(rpId: relyingParty, clientDataHash: Array(SHA256.hash(data: randomBytes(32))),
                                                allowCredentialIds: group.map(\.1.credentialId), userPresence: false)
                do {
                    let assertions = try device.getAssertion(probe)
                    if let found = assertions.first,
                       let match = group.first(where: { $0.1.credentialId == found.credentialId }) ?? (group.count == 1 ? group.first : nil) {
                        return match.0
                    }
                } catch .noCredentials {
                    continue
                } catch .cancelled {
                    throw .securityKey(.cancelled)
                } catch {
                    // A key that refuses silent assertions (some CTAP 2.0 keys)
                    // can still open the vault's only fido2 slot directly.
                    if candidates.count == 1, let only = candidates.first { return only.0 }
                    throw .securityKey(error)
                }
            }
        }
        let enrolled = candidates.map { "slot \($0.0.id): \($0.1.deviceLabel.isEmpty ? "a security key" : $0.1.deviceLabel)" }
        throw .securityKeyNotEnrolled("this security key (\(device.descriptor.product.isEmpty ? device.descriptor.path : device.descriptor.product)) "
            + "holds none of the vault's fido2 credentials (enrolled: \(enrolled.joined(separator: ", ")))")
    }

    /// Opens `slot` on the key: one assertion (touch, plus UV or the PIN when
    /// the slot was made with it), then the unwrap.
    public static func open(_ slot: KeySlot, on device: FIDODevice, pin: String?, vaultId: [UInt8],
                            progress: (@Sendable (ProgressStage) -> Void)?) throws(VaultError) -> DataKey {
        guard case .fido2(let parameters) = slot.protector else {
            throw .noSlotOfKind("fido2", available: slot.label)
        }
        let pinToUse = parameters.userVerification ? pin : nil
        if parameters.needsPIN(on: device.info) && pinToUse == nil { throw .securityKey(.pinRequired) }
        let secret = try hmacSecret(parameters, on: device, pin: pinToUse, progress: progress)
        return try slot.unwrap(with: parameters.derivation.wrappingKey(from: secret), vaultId: vaultId)
    }

    /// The credential's hmac-secret output for the slot's salt.
    static func hmacSecret(_ parameters: FIDO2SlotParameters, on device: FIDODevice, pin: String?,
                           progress: (@Sendable (ProgressStage) -> Void)?) throws(VaultError) -> SymmetricKey {
        let assertions: [Assertion]
        do {
            assertions = try device.getAssertion(parameters.assertionRequest(), pin: pin, progress: progress)
        } catch {
            throw .securityKey(error)
        }
        guard let assertion = assertions.first, var output = assertion.hmacSecret, output.count == 32 else {
            throw .securityKeyUnsuitable("the security key did not return an hmac-secret for the vault's credential")
        }
        defer { DataKey.zero(&output) }
        if parameters.userVerification && !assertion.flags.contains(.userVerified) {
            throw .securityKeyUnsuitable("the security key did not verify the user, which this slot needs")
        }
        return SymmetricKey(data: output)
    }
}
