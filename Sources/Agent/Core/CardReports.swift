import AgentProtocol
import PIV

/// The PIV layer's reports as the `card.*` methods' wire types.
extension CardInventoryReport {
    init(_ inventory: CardInventory) {
        self.init(readers: inventory.readers.map { reader in
            Reader(name: reader.name, cardPresent: reader.cardPresent, atr: reader.atr, applets: reader.applets,
                   piv: reader.piv.map(PIV.init), error: reader.error)
        })
    }
}

extension CardInventoryReport.PIV {
    init(_ piv: CardInventory.PIV) {
        self.init(firmwareVersion: piv.firmwareVersion, serialNumber: piv.serialNumber, chuidGUID: piv.chuidGUID,
                  pinTriesLeft: piv.pinTriesLeft, pinBlocked: piv.pinBlocked, pukTriesLeft: piv.pukTriesLeft,
                  pinIsDefault: piv.pinIsDefault, pukIsDefault: piv.pukIsDefault,
                  managementKeyIsDefault: piv.managementKeyIsDefault, managementKeyAlgorithm: piv.managementKeyAlgorithm,
                  keys: piv.keys.map { key in
                      .init(slot: key.slot.hex, slotName: key.slotName, algorithm: key.algorithm,
                            publicKey: key.publicKey.map(CardPublicKey.init), certificateSubject: key.certificateSubject,
                            generatedOnCard: key.generatedOnCard)
                  })
    }
}

extension CardPublicKey {
    init(_ key: PIVPublicKey) {
        self.init(algorithm: key.algorithm.description, point: key.hex)
    }
}

extension CardSetupPlan {
    init(_ plan: CardSetup.Plan) {
        let existing: ExistingKey = switch plan.existingKey {
        case .absent: .absent
        case .present: .present
        case .unknown: .unknown
        }
        self.init(reader: plan.reader, serialNumber: plan.serialNumber, slot: plan.slot.hex, existingKey: existing,
                  existingCertificateSubject: plan.existingCertificateSubject, steps: plan.steps)
    }
}

extension CardSetupReport {
    init(_ report: CardSetup.Report) {
        self.init(reader: report.reader, serialNumber: report.serialNumber, slot: report.slot.hex,
                  publicKey: CardPublicKey(report.publicKey), certificateSubject: report.certificateSubject,
                  replacedExistingKey: report.replacedExistingKey, pinIsDefault: report.pinIsDefault,
                  pukIsDefault: report.pukIsDefault, managementKeyIsDefault: report.managementKeyIsDefault,
                  pinTriesLeft: report.pinTriesLeft)
    }
}

extension CardPINReport {
    init(_ report: PINManagement.Report) {
        let operation: Operation = switch report.operation {
        case .changePIN: .changePIN
        case .changePUK: .changePUK
        case .unblockPIN: .unblockPIN
        }
        self.init(reader: report.reader, operation: operation, pinTriesLeft: report.pinTriesLeft,
                  pukTriesLeft: report.pukTriesLeft)
    }
}
