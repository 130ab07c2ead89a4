import CFIDO2

/// Sessions reachable through libfido2's `open(path)` callback: `pcsc-handle:N`.
/// Users name the device `pcsc:<reader>`, which libfido2 never sees.
let fidoAppletHandles = HandleRegistry<FIDOAppletSession>(pathPrefix: "pcsc-handle:")

/// The C callbacks handed to `fido_dev_set_io_functions` and
/// `fido_dev_set_transport_functions` for a FIDO applet on a card.
///
/// With transport functions set, libfido2 1.12 calls io `open` and `close`
/// only; `read` and `write` must exist (it rejects NULL members) but are never
/// called, so they fail. `tx`/`rx` carry bare CTAPHID commands (INIT, CBOR,
/// CANCEL) and payloads, without CTAPHID framing (reference/protocols.md §1).
enum PCSCTransportFunctions {
    static var io: fido_dev_io_t {
        fido_dev_io_t(
            open: { path in
                guard let path, let name = String(validatingCString: path),
                      let session = fidoAppletHandles.value(at: name) else { return nil }
                return Unmanaged.passRetained(session).toOpaque()
            },
            close: { raw in
                guard let raw else { return }
                let session = Unmanaged<FIDOAppletSession>.fromOpaque(raw)
                session.takeUnretainedValue().close()
                session.release()
            },
            read: { _, _, _, _ in -1 },
            write: { _, _, _ in -1 })
    }

    static var transport: fido_dev_transport_t {
        fido_dev_transport_t(
            rx: { device, command, buffer, size, milliseconds in
                guard let session = PCSCTransportFunctions.session(of: device), let buffer else { return -1 }
                return session.receive(command: command, into: UnsafeMutableBufferPointer(start: buffer, count: size),
                                       milliseconds: milliseconds)
            },
            tx: { device, command, buffer, count in
                guard let session = PCSCTransportFunctions.session(of: device) else { return -1 }
                // CTAP messages are bounded by the card's chaining, not here; libfido2
                // never sends more than it can frame (7609 bytes), but a count is a count.
                guard count <= 65535 else { return -1 }
                let payload = buffer.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
                guard payload.count == count else { return -1 }
                return session.transmit(command: command, payload: payload)
            })
    }

    /// The session `open` returned for this libfido2 device.
    private static func session(of device: OpaquePointer?) -> FIDOAppletSession? {
        guard let device, let raw = fido_dev_io_handle(device) else { return nil }
        return Unmanaged<FIDOAppletSession>.fromOpaque(raw).takeUnretainedValue()
    }
}
