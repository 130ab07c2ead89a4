import AgentProtocol
import AgentRuntime
import FIDO
import Hexadecimal
import Interaction

/// `key.info` and `key.reset`: one security key as a whole.
extension DevicesCapability {
    package func registerKey(into table: inout MethodTable.Builder) {
        table.register(KeyInfoMethod.self) { params, _ in try await self.keyInfo(params) }
        table.register(KeyResetMethod.self) { params, interaction in
            try await self.devices.withDevice(params.device) { device in
                try await device.perform { device throws(FIDOError) in
                    try device.reset(progress: { interaction.progress($0) })
                    return KeyResetReport(path: device.descriptor.path, reset: true)
                }
            }
        }
    }

    /// Looking at the software authenticator does not create its state file
    /// (as `devices.list`).
    package func keyInfo(_ params: KeyInfoMethod.Params) async throws -> KeyInfo {
        try await devices.withDeviceAsItIs(params.device) { device in
            try await device.perform { device throws(FIDOError) in
                let info = device.info
                let descriptor = device.descriptor
                return KeyInfo(
                    path: descriptor.path, manufacturer: descriptor.manufacturer, product: descriptor.product,
                    software: descriptor.isSoftware, transport: descriptor.transport.rawValue, aaguid: Hexadecimal.encode(info.aaguid),
                    versions: info.versions, extensions: info.extensions, options: info.options,
                    algorithms: info.algorithms, transports: info.transports,
                    pinUvAuthProtocols: info.pinUvAuthProtocols, firmwareVersion: info.firmwareVersion,
                    maxMessageSize: info.maxMessageSize, maxCredentialCountInList: info.maxCredentialCountInList,
                    maxCredentialIdLength: info.maxCredentialIdLength, minPINLength: info.minPINLength,
                    remainingDiscoverableCredentials: info.remainingDiscoverableCredentials,
                    pinSet: info.hasPIN,
                    pinRetries: info.supportsPIN ? try? device.pinRetries() : nil,
                    uvRetries: info.options["uv"] != nil ? try? device.uvRetries() : nil)
            }
        }
    }
}
