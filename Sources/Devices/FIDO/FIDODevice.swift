import CFIDO2
import Dispatch
import Interaction
import Locking

/// An open authenticator. One request runs at a time (libfido2's device
/// handle is not thread-safe); `cancel()` may be called from any thread.
public final class FIDODevice: @unchecked Sendable {
    public let descriptor: DeviceDescriptor
    public let info: AuthenticatorInfo
    /// The libfido2 handle. Touched only under `exclusive`, except by `fido_dev_cancel`.
    let handle: OpaquePointer
    private let exclusive = Locked(())
    private let link: DeviceLink
    private let queue = DispatchQueue(label: "passkey.fido.device")

    /// Opens the device and reads its GetInfo.
    public static func open(_ target: DeviceTarget) throws(FIDOError) -> FIDODevice {
        FIDOLibrary.ensureInitialised()
        guard let handle = fido_dev_new() else { throw .other(code: FIDO_ERR_INTERNAL, "out of memory") }
        var owned: OpaquePointer? = handle
        let link: DeviceLink
        do {
            link = try DeviceLink.prepare(target, handle: handle)
        } catch {
            fido_dev_free(&owned)
            throw error
        }
        let path = link.path
        // Opening (CTAPHID_INIT, then GetInfo) is bounded: nothing can cancel
        // it yet, and a device that only ever says "wait" (a card answering
        // 9100 forever) must not hold its reader's queue. Each request sets
        // its own timeout later (`exchange`).
        _ = fido_dev_set_timeout(handle, Self.openingTimeoutMilliseconds)
        let opened = fido_dev_open(handle, path)
        guard opened == FIDO_OK else {
            fido_dev_free(&owned)
            defer { link.release() }
            switch opened {
            case FIDO_ERR_RX, FIDO_ERR_TX, FIDO_ERR_INTERNAL:
                throw link.explained(.deviceUnavailable("could not open \(link.descriptor.path) (\(String(cString: fido_strerr(opened)))); is it plugged in, and may you use it (udev rules)?"))
            default:
                throw link.explained(FIDOError(code: opened, operation: "opening \(link.descriptor.path)"))
            }
        }
        guard fido_dev_is_fido2(handle) else {
            fido_dev_close(handle)
            link.release()
            fido_dev_free(&owned)
            throw .unsupportedOption("FIDO2 (this is a U2F-only key)")
        }
        guard let rawInfo = fido_cbor_info_new() else {
            fido_dev_close(handle)
            link.release()
            fido_dev_free(&owned)
            throw .other(code: FIDO_ERR_INTERNAL, "out of memory")
        }
        var infoOwned: OpaquePointer? = rawInfo
        defer { fido_cbor_info_free(&infoOwned) }
        let infoStatus = fido_dev_get_cbor_info(handle, rawInfo)
        guard infoStatus == FIDO_OK else {
            fido_dev_close(handle)
            defer { link.release() }
            fido_dev_free(&owned)
            throw link.explained(FIDOError(code: infoStatus, operation: "reading the key's info"))
        }
        return FIDODevice(handle: handle, info: AuthenticatorInfo(rawInfo), link: link)
    }

    private init(handle: OpaquePointer, info: AuthenticatorInfo, link: DeviceLink) {
        self.handle = handle
        self.descriptor = link.descriptor
        self.info = info
        self.link = link
    }

    deinit {
        fido_dev_close(handle)
        var owned: OpaquePointer? = handle
        fido_dev_free(&owned)
        link.release()
    }

    /// How long opening a device and reading its GetInfo may take.
    static let openingTimeoutMilliseconds: Int32 = 10_000

    /// Asks the key to abandon the request in flight (CTAPHID_CANCEL).
    /// The request then fails with `FIDOError.cancelled`.
    public func cancel() {
        _ = fido_dev_cancel(handle)
    }

    /// Runs one libfido2 request with exclusive use of the handle and returns
    /// libfido2's status.
    ///
    /// `timeout` bounds the whole exchange (libfido2 counts it down across
    /// reads); a read that runs out of it comes back as FIDO_ERR_RX, which is
    /// reported here as the key's own USER_ACTION_TIMEOUT would be.
    /// `progress` hears `.processing` at once and `.touch` (`.tap` for a key on
    /// a PC/SC reader) when the key says it waits for the user — from
    /// KEEPALIVE packets on packet devices and `9100` keepalives on cards; for
    /// hidraw keys, whose keepalives libfido2 consumes, as soon as a request
    /// that needs presence is sent.
    func exchange(timeout: Duration?, expectsTouch: Bool,
                  progress: (@Sendable (ProgressStage) -> Void)?,
                  _ body: (OpaquePointer) -> Int32) -> Int32 {
        exclusive.withLock { _ in
            let milliseconds = timeout.map { Int32(clamping: $0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? -1
            _ = fido_dev_set_timeout(handle, milliseconds)
            progress?(.processing)
            // What the person does for presence: touch a USB key, tap an NFC one.
            let presence: ProgressStage = descriptor.transport == .nfc ? .tap : .touch
            if let observer = link.observer {
                observer.setHandler { status in
                    if status == 0x02 { progress?(presence) }  // KEEPALIVE UPNEEDED
                }
            } else if let applet = link.applet {
                applet.setKeepaliveHandler { status in
                    if status == 0x02 { progress?(presence) }  // 9100 with UPNEEDED
                }
            } else if expectsTouch {
                progress?(presence)
            }
            defer {
                link.observer?.setHandler(nil)
                link.applet?.setKeepaliveHandler(nil)
            }
            let clock = ContinuousClock()
            let started = clock.now
            let status = body(handle)
            if status == FIDO_ERR_RX, let timeout, clock.now - started >= timeout - .milliseconds(50) {
                return FIDO_ERR_USER_ACTION_TIMEOUT
            }
            return status
        }
    }

    /// Runs a blocking device call off the Swift concurrency pool; cancelling
    /// the task cancels the request on the key.
    ///
    /// A CTAPHID_CANCEL only affects a request the key is already processing,
    /// so a cancellation that races the start of the request is repeated every
    /// 100 ms until the request ends.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (FIDODevice) throws(FIDOError) -> T) async throws(FIDOError) -> T {
        let state = Locked((cancelled: false, finished: false))
        let result: Result<T, FIDOError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async {
                    let result: Result<T, FIDOError>
                    if state.withLock({ $0.cancelled }) {
                        result = .failure(.cancelled)
                    } else {
                        do throws(FIDOError) { result = .success(try body(self)) } catch { result = .failure(self.link.explained(error)) }
                    }
                    state.withLock { $0.finished = true }
                    continuation.resume(returning: result)
                }
            }
        } onCancel: {
            state.withLock { $0.cancelled = true }
            self.cancelUntilFinished { state.withLock { $0.finished } }
        }
        return try result.get()
    }

    private func cancelUntilFinished(_ finished: @escaping @Sendable () -> Bool) {
        guard !finished() else { return }
        cancel()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) {
            self.cancelUntilFinished(finished)
        }
    }
}
