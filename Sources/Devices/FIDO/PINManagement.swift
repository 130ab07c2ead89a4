import CFIDO2

extension FIDODevice {
    /// Sets the first PIN on a key that has none.
    public func setPIN(_ newPIN: String, timeout: Duration? = .seconds(30)) throws(FIDOError) {
        let status = exchange(timeout: timeout, expectsTouch: false,
                                  progress: nil) { handle in
            fido_dev_set_pin(handle, newPIN, nil)
        }
        guard status == FIDO_OK else { throw FIDOError(code: status, operation: "setting the PIN") }
    }

    /// Changes the PIN; a wrong current PIN reports the tries left.
    public func changePIN(from currentPIN: String, to newPIN: String,
                          timeout: Duration? = .seconds(30)) throws(FIDOError) {
        let status = exchange(timeout: timeout, expectsTouch: false,
                                  progress: nil) { handle in
            fido_dev_set_pin(handle, newPIN, currentPIN)
        }
        guard status == FIDO_OK else {
            throw FIDOError(code: status, operation: "changing the PIN") { self.pinRetriesIfKnown() }
        }
    }

    /// PIN attempts left before the key blocks its PIN.
    public func pinRetries() throws(FIDOError) -> Int {
        var retries: Int32 = 0
        let status = exchange(timeout: .seconds(10), expectsTouch: false,
                                  progress: nil) { handle in
            fido_dev_get_retry_count(handle, &retries)
        }
        guard status == FIDO_OK else { throw FIDOError(code: status, operation: "reading PIN retries") }
        return Int(retries)
    }

    /// The tries left, for the error after a wrong PIN; nil when the key does
    /// not say. Through `exchange` like every other call on the handle: it
    /// runs after the failed request let the handle go, and another request
    /// (or `perform` on another thread) may hold it by then.
    func pinRetriesIfKnown() -> Int? { try? pinRetries() }

    /// Built-in user verification attempts left.
    public func uvRetries() throws(FIDOError) -> Int {
        var retries: Int32 = 0
        let status = exchange(timeout: .seconds(10), expectsTouch: false,
                                  progress: nil) { handle in
            fido_dev_get_uv_retry_count(handle, &retries)
        }
        guard status == FIDO_OK else { throw FIDOError(code: status, operation: "reading UV retries") }
        return Int(retries)
    }
}
