import Crypto
import FoundationEssentials
import ISO7816
import PIVWire
import Reports
import X509

/// `passkey card setup`: give a card the key-management key (slot 9D) the
/// vault's `piv` key slot agrees with, plus a self-signed certificate so PIV
/// middleware (OpenSC, Windows, macOS) shows the key.
public enum CardSetup {
    public static let slot = PIVSlot.keyManagement
    public static let certificateCommonName = "passkey-agent key management"
    public static let certificateOrganization = "passkey-agent"

    /// Whether slot 9D already holds a key.
    public typealias ExistingKey = CardSetupPlan.ExistingKey

    /// Looks at the card without any secret and says what `run` would do.
    public static func plan(session: PIVSession, usingDefaultManagementKey: Bool) throws(PIVError) -> CardSetupPlan {
        try session.withTransaction { session throws(PIVError) in
            let existing = try existingKey(session: session)
            let certificate = try? session.certificate(slot: slot)
            var steps = [
                "verify the PIN",
                usingDefaultManagementKey
                    ? "authenticate with the default management key"
                    : "authenticate with the management key you gave",
            ]
            switch existing {
            case .absent:
                steps.append("generate a new P-256 key in slot \(slot) (\(slot.name))")
            case .present:
                steps.append("generate a new P-256 key in slot \(slot) (\(slot.name)), REPLACING the key there (it is lost for good)")
            case .unknown:
                steps.append("check whether slot \(slot) holds a key, then generate a new P-256 key there")
            }
            steps.append("write a self-signed certificate (CN=\(certificateCommonName), O=\(certificateOrganization)) "
                         + "to object \(slot.certificateObject)")
            return CardSetupPlan(reader: session.readerName, serialNumber: try session.serialNumber(), slot: slot.hex,
                        existingKey: existing,
                        existingCertificateSubject: certificate.map { String(describing: $0.subject) },
                        steps: steps)
        }
    }

    /// Verifies the PIN, authenticates with the management key (the default
    /// when nil), generates the 9D key and writes its certificate.
    ///
    /// Refuses with `.keyExists` when 9D holds a key and `replaceExistingKey`
    /// is false. Never retries the PIN.
    public static func run(session: PIVSession, pin: [UInt8], managementKey: PIVManagementKey?,
                           replaceExistingKey: Bool) throws(PIVError) -> CardSetupReport {
        try session.withTransaction { session throws(PIVError) in
            try session.verifyPIN(pin)
            let key = try resolveManagementKey(managementKey ?? .default, session: session)
            try session.authenticate(with: key)

            var existing = try existingKey(session: session)
            if existing == .unknown { existing = try probeForKey(session: session) }
            if existing == .present && !replaceExistingKey { throw PIVError.keyExists(slot: slot) }

            let publicKey = try session.generateKey(in: slot)
            let certificate = try PIVCertificateBuilder.selfSigned(
                session: session, slot: slot, publicKey: publicKey,
                commonName: certificateCommonName, organization: certificateOrganization)
            try session.writeCertificate(certificate, slot: slot)

            let pinMetadata = try session.pinMetadata()
            return CardSetupReport(reader: session.readerName, serialNumber: try session.serialNumber(), slot: slot.hex,
                          publicKey: CardPublicKey(publicKey), certificateSubject: String(describing: certificate.subject),
                          replacedExistingKey: existing == .present,
                          pinIsDefault: pinMetadata?.isDefault ?? (pin == PIVFactoryDefaults.pin),
                          pukIsDefault: try session.pukMetadata()?.isDefault,
                          managementKeyIsDefault: key.key == PIVManagementKey.default.key,
                          pinTriesLeft: pinMetadata?.retriesLeft)
        }
    }

    /// The key as the card stores it: same bytes, the algorithm the card reports (a
    /// YubiKey 5.7 keeps the default key bytes as AES-192).
    public static func resolveManagementKey(_ key: PIVManagementKey, session: PIVSession) throws(PIVError) -> PIVManagementKey {
        guard let algorithm = try session.managementKeyAlgorithm(), algorithm != key.algorithm else { return key }
        return try key.with(algorithm: algorithm)
    }

    static func existingKey(session: PIVSession) throws(PIVError) -> ExistingKey {
        if try session.supportsMetadata() {
            return try session.keyMetadata(slot: slot) == nil ? .absent : .present
        }
        if (try? session.readObject(slot.certificateObject)) != nil { return .present }
        return .unknown
    }

    /// With the PIN verified, an ECDH with a throw-away point shows whether
    /// the slot holds a key: "not found" means empty; any other refusal is
    /// treated as a key of another kind.
    static func probeForKey(session: PIVSession) throws(PIVError) -> ExistingKey {
        let probe = Crypto.P256.KeyAgreement.PrivateKey().publicKey
        do {
            _ = try session.sharedSecret(slot: slot, peer: probe)
            return .present
        } catch .noKey {
            return .absent
        } catch .smartCard(let error) {
            throw .smartCard(error)
        } catch {
            return .present
        }
    }
}
