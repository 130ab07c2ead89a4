import ISO7816
import PIVWire

/// Where the PIN stands, as an empty VERIFY reports it.
public enum PIVPINState: Sendable, Equatable {
    case verified
    case notVerified(triesLeft: Int)
    case blocked
}

extension PIVSession {
    /// Checks the PIN. Throws `.wrongPIN(triesLeft:)` or `.pinBlocked`; never retries.
    public func verifyPIN(_ pin: [UInt8]) throws(PIVError) {
        var padded = try PIVSecret.padded(pin, kind: .pin)
        defer { PIVSecret.wipe(&padded) }
        _ = try perform(CommandAPDU(ins: PIVInstruction.verify, p1: 0x00, p2: PIVKeyReference.pin, data: padded),
                        operation: "PIN verification", failure: { Self.pinFailure($0, kind: .pin) })
    }

    /// Reads the PIN state without presenting a PIN (VERIFY with no data); costs no try.
    public func pinState() throws(PIVError) -> PIVPINState {
        let response = try withTransaction { session throws(PIVError) in
            try session.send(CommandAPDU(ins: PIVInstruction.verify, p1: 0x00, p2: PIVKeyReference.pin))
        }
        if response.status.isSuccess { return .verified }
        if response.status == .authenticationMethodBlocked { return .blocked }
        if let tries = response.status.triesLeft { return tries == 0 ? .blocked : .notVerified(triesLeft: tries) }
        throw .cardRejected(operation: "reading the PIN state", status: response.status)
    }

    /// Forgets the PIN verification on the card (VERIFY P1 = FF).
    public func forgetPINVerification() throws(PIVError) {
        _ = try perform(CommandAPDU(ins: PIVInstruction.verify, p1: 0xFF, p2: PIVKeyReference.pin),
                        operation: "resetting the PIN verification")
    }

    /// Replaces the PIN; needs the current one. Wrong current PIN: `.wrongPIN(triesLeft:)`.
    public func changePIN(current: [UInt8], new: [UInt8]) throws(PIVError) {
        try changeReferenceData(PIVKeyReference.pin, kind: .pin, current: current, new: new)
    }

    /// Replaces the PUK; needs the current one. Wrong current PUK: `.wrongPUK(triesLeft:)`.
    public func changePUK(current: [UInt8], new: [UInt8]) throws(PIVError) {
        try changeReferenceData(PIVKeyReference.puk, kind: .puk, current: current, new: new)
    }

    /// Sets a new PIN and restores its tries, proven by the PUK (RESET RETRY COUNTER).
    public func unblockPIN(puk: [UInt8], newPIN: [UInt8]) throws(PIVError) {
        var data = try PIVSecret.padded(puk, kind: .puk) + PIVSecret.padded(newPIN, kind: .pin)
        defer { PIVSecret.wipe(&data) }
        _ = try perform(CommandAPDU(ins: PIVInstruction.resetRetryCounter, p1: 0x00, p2: PIVKeyReference.pin, data: data),
                        operation: "unblocking the PIN",
                        failure: { status in
                            if status == .incorrectData { return .invalidSecret("the card refused the new PIN") }
                            return Self.pinFailure(status, kind: .puk)
                        })
    }

    private func changeReferenceData(_ reference: UInt8, kind: PIVSecret.Kind,
                                     current: [UInt8], new: [UInt8]) throws(PIVError) {
        var data = try PIVSecret.padded(current, kind: kind) + PIVSecret.padded(new, kind: kind)
        defer { PIVSecret.wipe(&data) }
        _ = try perform(CommandAPDU(ins: PIVInstruction.changeReferenceData, p1: 0x00, p2: reference, data: data),
                        operation: "changing the \(kind.rawValue)",
                        failure: { status in
                            if status == .incorrectData { return .invalidSecret("the card refused the new \(kind.rawValue)") }
                            return Self.pinFailure(status, kind: kind)
                        })
    }

    /// 63Cx and 6983 as PIN or PUK errors.
    static func pinFailure(_ status: StatusWord, kind: PIVSecret.Kind) -> PIVError? {
        if status == .authenticationMethodBlocked { return kind == .pin ? .pinBlocked : .pukBlocked }
        if let tries = status.triesLeft {
            if tries == 0 { return kind == .pin ? .pinBlocked : .pukBlocked }
            return kind == .pin ? .wrongPIN(triesLeft: tries) : .wrongPUK(triesLeft: tries)
        }
        return nil
    }
}
