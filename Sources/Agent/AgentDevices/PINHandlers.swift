import AgentProtocol
import AgentRuntime
import FIDO

extension DevicesCapability {
    package func registerPIN(into table: inout MethodTable.Builder) {
        table.register(PINSetMethod.self) { params, _ in
            try await self.devices.withDevice(params.device) { device in
                try await device.perform { device throws(FIDOError) in
                    guard device.info.supportsPIN else { throw .unsupportedOption("a PIN") }
                    guard !device.info.hasPIN else {
                        throw .invalidArgument("this key already has a PIN; change it with `passkey pin change`")
                    }
                    try device.setPIN(params.newPin)
                    return PINStatus(pinSet: true, retries: try? device.pinRetries())
                }
            }
        }
        table.register(PINChangeMethod.self) { params, _ in
            try await self.devices.withDevice(params.device) { device in
                try await device.perform { device throws(FIDOError) in
                    guard device.info.hasPIN else { throw .pinNotSet }
                    try device.changePIN(from: params.pin, to: params.newPin)
                    return PINStatus(pinSet: true, retries: try? device.pinRetries())
                }
            }
        }
    }
}
