import Hexadecimal
import Reports
import SmartCard
import X509

/// What `passkey card list` shows: every reader, its card, and the card's
/// PIV state, as `CardInventoryReport` (Reports) says it.
public enum CardInventory {
    /// The FIDO (CTAP over ISO 7816) application identifier.
    static let fidoApplicationIdentifier: [UInt8] = [0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]

    /// Looks at every reader pcscd knows. A card that cannot be inspected is
    /// reported with its error; only pcscd itself failing throws.
    public static func collect(context: SmartCardContext) throws(PIVError) -> CardInventoryReport {
        let statuses: [ReaderStatus]
        do {
            statuses = try context.status()
        } catch {
            throw .smartCard(error)
        }
        return CardInventoryReport(readers: statuses.map { inspect($0, context: context) })
    }

    static func inspect(_ status: ReaderStatus, context: SmartCardContext) -> CardInventoryReport.Reader {
        var reader = CardInventoryReport.Reader(name: status.name, cardPresent: status.cardPresent,
                            atr: status.cardPresent ? Hexadecimal.encode(status.atr) : nil,
                            applets: [], piv: nil, error: nil)
        guard status.cardPresent else { return reader }
        do {
            let connection = try context.connect(reader: status.name)
            defer { connection.disconnect() }
            if let fido = try? connection.transmit(.select(applicationIdentifier: fidoApplicationIdentifier)),
               fido.status.isSuccess {
                reader.applets.append("FIDO")
            }
            let session: PIVSession
            do {
                session = try PIVSession(channel: connection)
            } catch .notPIVCard {
                return reader
            }
            reader.applets.insert("PIV", at: 0)
            reader.piv = try describe(session)
        } catch let error as SmartCardError {
            reader.error = error.description
        } catch let error as PIVError {
            reader.error = error.description
        } catch {
            reader.error = "\(error)"
        }
        return reader
    }

    /// The PIV part of the inventory for an open session.
    public static func describe(_ session: PIVSession) throws(PIVError) -> CardInventoryReport.PIV {
        try session.withTransaction { session throws(PIVError) in
            let pinMetadata = try session.pinMetadata()
            let pukMetadata = try session.pukMetadata()
            let managementKey = try session.managementKeyMetadata()
            let pinState = try session.pinState()
            var pinTries: Int?
            switch pinState {
            case .notVerified(let tries): pinTries = tries
            case .blocked: pinTries = 0
            case .verified: pinTries = pinMetadata?.retriesLeft
            }
            var keys: [CardInventoryReport.Key] = []
            for slot in PIVSlot.allKeySlots {
                if let key = try describeKey(slot: slot, session: session) { keys.append(key) }
            }
            return CardInventoryReport.PIV(firmwareVersion: session.firmwareVersion?.description,
                       serialNumber: try session.serialNumber(),
                       chuidGUID: try session.chuidGUID().map { Hexadecimal.encode($0) },
                       pinTriesLeft: pinTries,
                       pinBlocked: pinState == .blocked,
                       pukTriesLeft: pukMetadata?.retriesLeft,
                       pinIsDefault: pinMetadata?.isDefault,
                       pukIsDefault: pukMetadata?.isDefault,
                       managementKeyIsDefault: managementKey?.isDefault,
                       managementKeyAlgorithm: managementKey?.algorithm.description,
                       keys: keys)
        }
    }

    private static func describeKey(slot: PIVSlot, session: PIVSession) throws(PIVError) -> CardInventoryReport.Key? {
        let metadata = try session.keyMetadata(slot: slot)
        var certificate: Certificate?
        do {
            certificate = try session.certificate(slot: slot)
        } catch .certificate {
            // An unreadable certificate does not hide the key.
            certificate = nil
        }
        guard metadata != nil || certificate != nil else { return nil }
        let certificateKey = certificate.flatMap { try? PIVCertificates.publicKey(of: $0, slot: slot) }
        return CardInventoryReport.Key(slot: slot.hex, slotName: slot.name,
                   algorithm: metadata?.algorithm.description ?? certificateKey?.algorithm.description,
                   publicKey: (metadata?.publicKey ?? certificateKey).map(CardPublicKey.init),
                   certificateSubject: certificate.map { String(describing: $0.subject) },
                   generatedOnCard: metadata?.generatedOnCard)
    }
}
