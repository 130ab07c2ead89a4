import AgentProtocol
import ArgumentParser

struct DevicesCommand: Verb {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List connected security keys and what they can do.",
        discussion: """
        USB keys are found through libfido2. Keys on PC/SC readers (NFC keys on a \
        contactless reader) are listed as pcsc:READER when the card in the reader \
        answers the FIDO applet's SELECT, and marked [nfc]; pass that name to \
        --device. The software authenticator is listed when --device virtual is \
        given or [device] default = "virtual" is configured; it is always marked [software].
        """)

    @OptionGroup var deviceOptions: DeviceOptions
    @OptionGroup var runOptions: RunOptions

    func execute(on backend: Backend) async throws(AgentError) {
        let list = try await backend.call(DevicesListMethod.self, deviceOptions.choice,
                                          interaction: TerminalInteraction(pins: .interactive))
        if runOptions.json { Output.json(list); return }
        if list.devices.isEmpty {
            Output.line("No security key is connected, by USB or on a PC/SC (NFC) reader. (Use --device virtual for the software authenticator.)")
            return
        }
        for device in list.devices {
            let mark = device.software ? "  [software]" : (device.transport == "nfc" ? "  [nfc]" : "")
            let name = [device.manufacturer, device.product].filter { !$0.isEmpty }.joined(separator: " ")
            Output.line("\(device.path)  \(name)\(mark)")
            if let error = device.error { Output.line("  error: \(error)"); continue }
            Output.line("  versions:   \(device.versions.joined(separator: ", "))")
            Output.line("  aaguid:     \(device.aaguid)")
            let options = device.options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            Output.line("  options:    \(options.joined(separator: " "))")
            Output.line("  extensions: \(device.extensions.joined(separator: ", "))")
            let pin = device.pinSet ? "set" : (device.options["clientPin"] == nil ? "not supported" : "not set")
            Output.line("  PIN:        \(pin)\(device.pinRetries.map { ", \($0) retries left" } ?? "")")
            if let uv = device.uvRetries { Output.line("  built-in UV: \(uv) attempts left") }
        }
    }
}
