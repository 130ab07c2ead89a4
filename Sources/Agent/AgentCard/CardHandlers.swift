import AgentProtocol
import AgentRuntime
import PIV
import PIVWire
import SmartCard

/// The `passkey card` operations, served like every other verb. Card work
/// runs on the card queue (one PC/SC operation at a time, off the Swift
/// concurrency pool); secrets arrive as strings and are copied into byte
/// buffers that are zeroed when the operation ends.
extension CardCapability {
    package func registerCards(into table: inout MethodTable.Builder) {
        table.register(CardListMethod.self) { _, _ in
            try await CardQueue.run { () throws(PIVError) in
                try CardInventory.collect(context: try Self.pcsc())
            }
        }
        table.register(CardPlanMethod.self) { params, _ in
            try await CardQueue.run { () throws(PIVError) in
                let session = try PIVCardLocator.open(reader: params.reader, context: try Self.pcsc())
                return try CardSetup.plan(session: session, usingDefaultManagementKey: params.defaultManagementKey)
            }
        }
        table.register(CardSetupMethod.self) { params, _ in
            try await CardQueue.run { () throws(PIVError) in
                let session = try PIVCardLocator.open(reader: params.reader, context: try Self.pcsc())
                let managementKey = try params.managementKey.map { (hex) throws(PIVError) in
                    try PIVManagementKey(hex: hex, algorithm: try session.managementKeyAlgorithm())
                }
                var pin = Array(params.pin.utf8)
                defer { pin.zeroize() }
                return try CardSetup.run(session: session, pin: pin, managementKey: managementKey,
                                         replaceExistingKey: params.force)
            }
        }
        table.register(CardPINStatusMethod.self) { params, _ in
            try await CardQueue.run { () throws(PIVError) in
                let session = try PIVCardLocator.open(reader: params.reader, context: try Self.pcsc())
                let status = try PINManagement.status(session: session)
                return .init(reader: session.readerName, pinTriesLeft: status.pinTriesLeft, pukTriesLeft: status.pukTriesLeft)
            }
        }
        table.register(CardChangePINMethod.self) { params, _ in
            try await CardQueue.run { () throws(PIVError) in
                let session = try PIVCardLocator.open(reader: params.reader, context: try Self.pcsc())
                var current = Array(params.current.utf8), new = Array(params.new.utf8)
                defer { current.zeroize(); new.zeroize() }
                return params.puk ? try PINManagement.changePUK(session: session, current: current, new: new)
                                  : try PINManagement.changePIN(session: session, current: current, new: new)
            }
        }
        table.register(CardUnblockPINMethod.self) { params, _ in
            try await CardQueue.run { () throws(PIVError) in
                let session = try PIVCardLocator.open(reader: params.reader, context: try Self.pcsc())
                var puk = Array(params.puk.utf8), newPIN = Array(params.newPin.utf8)
                defer { puk.zeroize(); newPIN.zeroize() }
                return try PINManagement.unblockPIN(session: session, puk: puk, newPIN: newPIN)
            }
        }
        table.register(CardReplaceManagementKeyMethod.self) { params, _ in
            try await CardQueue.run { () throws(PIVError) in
                let session = try PIVCardLocator.open(reader: params.reader, context: try Self.pcsc())
                let current = try params.managementKey.map { (hex) throws(PIVError) in
                    try PIVManagementKey(hex: hex, algorithm: try session.managementKeyAlgorithm())
                } ?? .default
                let aesCapable = session.firmwareVersion.map { $0 >= PIVFirmwareVersion(major: 5, minor: 4, patch: 0) } ?? false
                let key = try PIVManagementKey.random(algorithm: aesCapable ? .aes192 : .tripleDES)
                try session.withTransaction { session throws(PIVError) in
                    try session.authenticate(with: CardSetup.resolveManagementKey(current, session: session))
                    try session.setManagementKey(key)
                }
                return .init(algorithm: "\(key.algorithm)", managementKey: key.hexString)
            }
        }
    }

    package static func pcsc() throws(PIVError) -> SmartCardContext {
        do { return try SmartCardContext() } catch { throw .smartCard(error) }
    }
}

extension Array where Element == UInt8 {
    /// Overwrites a secret's bytes before the buffer is released.
    package mutating func zeroize() {
        for index in indices { self[index] = 0 }
    }
}
