import AgentDevices
import AgentProtocol
import AgentRuntime
import AgentTokens
import AgentVault
import FIDO
import Hexadecimal

#if canImport(Glibc)
import Glibc
#endif

extension CoreServices {
    func registerStatus(into table: inout MethodTable.Builder) {
        table.registerQuick(AgentStatusMethod.self) { _ in self.status() }
        table.register(DevicesListMethod.self) { choice, _ in try await self.listDevices(choice) }
    }

    /// Cheap: no device is opened, so it answers while ceremonies run.
    func status() -> AgentStatus {
        var devices = self.devices.connectedKeysRecently().map {
            DeviceSummary(path: $0.path, product: $0.product, software: false)
        }
        if self.devices.virtualIsDefault {
            devices.append(DeviceSummary(path: "virtual", product: DeviceBroker.virtualDescriptor.product, software: true))
        }
        let uptime = ContinuousClock.now - started
        let problems = config.problems
        return AgentStatus(
            version: passkeyAgentVersion, protocolVersion: protocolVersion,
            uptimeSeconds: runningAsAgent ? Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18 : 0,
            pendingRequests: max(0, requestsInFlight - 1),
            devices: devices, agentRunning: runningAsAgent, pid: getpid(), vault: vaultCapability.vaultLockState(),
            configProblems: problems.isEmpty ? nil : problems, settings: settingsInForce())
    }

    /// Every connected key — USB, and on PC/SC readers the cards whose FIDO
    /// applet answers SELECT — (and the software authenticator when chosen or
    /// configured), each opened to read its GetInfo and PIN retries.
    func listDevices(_ choice: DeviceChoice) async throws(AgentError) -> DeviceList {
        var targets: [DeviceBroker.Resolved] = []
        if choice.device != nil {
            targets = [try await devices.resolve(choice)]
        } else {
            targets = DeviceDiscovery.connectedKeys().map { .hidraw($0.path) }
            targets += await devices.pcscKeys().compactMap { key in
                PCSCDiscovery.reader(inDevicePath: key.path).map { .pcsc(reader: $0) }
            }
            if devices.virtualIsDefault { targets.append(.virtual(statePath: devices.virtualStatePath(choice))) }
        }
        var reports: [DeviceReport] = []
        for target in targets {
            reports.append(await report(for: target, choice: choice))
        }
        return DeviceList(devices: reports)
    }

    private func report(for target: DeviceBroker.Resolved, choice: DeviceChoice) async -> DeviceReport {
        let descriptor: DeviceDescriptor
        switch target {
        case .virtual: descriptor = DeviceBroker.virtualDescriptor
        case .hidraw(let path):
            descriptor = DeviceDiscovery.connectedKeys().first { $0.path == path }
                ?? DeviceDescriptor(path: path, manufacturer: "", product: "", vendorId: 0, productId: 0, isSoftware: false)
        case .pcsc(let reader):
            descriptor = PCSCDiscovery.descriptor(reader: reader)
        }
        var report = DeviceReport(path: descriptor.path, manufacturer: descriptor.manufacturer,
                                  product: descriptor.product, vendorId: descriptor.vendorId,
                                  productId: descriptor.productId, software: descriptor.isSoftware,
                                  transport: descriptor.transport.rawValue)
        do {
            let pinned = DeviceChoice(device: descriptor.isSoftware ? "virtual" : descriptor.path,
                                      virtualState: choice.virtualState)
            let (info, pinRetries, uvRetries) = try await devices.withDeviceAsItIs(pinned) { device in
                try await device.perform { device throws(FIDOError) in
                    let pins = device.info.supportsPIN ? try? device.pinRetries() : nil
                    let uvs = device.info.options["uv"] != nil ? try? device.uvRetries() : nil
                    return (device.info, pins, uvs)
                }
            }
            report.versions = info.versions
            report.aaguid = Hexadecimal.encode(info.aaguid)
            report.options = info.options
            report.extensions = info.extensions
            report.algorithms = info.algorithms
            report.transports = info.transports
            report.pinSet = info.hasPIN
            report.pinRetries = pinRetries
            report.uvRetries = uvRetries
        } catch {
            report.error = AgentError(error).message
        }
        return report
    }
}
