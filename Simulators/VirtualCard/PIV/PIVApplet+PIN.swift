import ISO7816
import PIVWire

extension PIVApplet {
    /// VERIFY (SP 800-73-4 Part 2 §3.2.1): with 8 bytes checks the PIN;
    /// without data reports the state (9000 verified, 63Cx tries left, 6983
    /// blocked); with P1 FF and no data forgets the verification.
    func verify(_ command: CommandAPDU) throws(StatusError) -> ResponseAPDU {
        guard command.p2 == PIVKeyReference.pin else { throw StatusError(.referencedDataNotFound) }
        if command.p1 == 0xFF {
            guard command.data.isEmpty else { throw StatusError(.incorrectP1P2) }
            pinVerified = false
            pinVerifiedForAlwaysKey = false
            return .success
        }
        guard command.p1 == 0x00 else { throw StatusError(.incorrectP1P2) }
        if command.data.isEmpty {
            if state.pin.retriesLeft == 0 { return .status(.authenticationMethodBlocked) }
            return pinVerified ? .success : .status(.verificationFailed(triesLeft: state.pin.retriesLeft))
        }
        guard command.data.count == PIVPadding.length else { throw StatusError(.incorrectData) }
        try check(\.pin, against: command.data)
        pinVerified = true
        pinVerifiedForAlwaysKey = true
        return .success
    }

    /// CHANGE REFERENCE DATA (§3.2.2): old value (8) ‖ new value (8) for the PIN (80) or PUK (81).
    func changeReferenceData(_ command: CommandAPDU) throws(StatusError) -> ResponseAPDU {
        guard command.p1 == 0x00 else { throw StatusError(.incorrectP1P2) }
        guard command.data.count == 2 * PIVPadding.length else { throw StatusError(.incorrectData) }
        let current = Array(command.data[..<PIVPadding.length])
        let replacement = Array(command.data[PIVPadding.length...])
        switch command.p2 {
        case PIVKeyReference.pin:
            try check(\.pin, against: current)
            guard PIVPadding.isWellFormed(replacement) else { throw StatusError(.incorrectData) }
            state.pin.replace(with: replacement, isDefault: replacement == PIVPadding.pad(PIVFactoryDefaults.pin))
        case PIVKeyReference.puk:
            try check(\.puk, against: current)
            guard PIVPadding.isWellFormed(replacement) else { throw StatusError(.incorrectData) }
            state.puk.replace(with: replacement, isDefault: replacement == PIVPadding.pad(PIVFactoryDefaults.puk))
        default:
            throw StatusError(.referencedDataNotFound)
        }
        try persist()
        logger.info("\(command.p2 == PIVKeyReference.pin ? "PIN" : "PUK") changed")
        return .success
    }

    /// RESET RETRY COUNTER (§3.2.3): PUK (8) ‖ new PIN (8) unblocks the PIN.
    func resetRetryCounter(_ command: CommandAPDU) throws(StatusError) -> ResponseAPDU {
        guard command.p1 == 0x00 else { throw StatusError(.incorrectP1P2) }
        guard command.p2 == PIVKeyReference.pin else { throw StatusError(.referencedDataNotFound) }
        guard command.data.count == 2 * PIVPadding.length else { throw StatusError(.incorrectData) }
        let puk = Array(command.data[..<PIVPadding.length])
        let newPIN = Array(command.data[PIVPadding.length...])
        try check(\.puk, against: puk)
        guard PIVPadding.isWellFormed(newPIN) else { throw StatusError(.incorrectData) }
        state.pin.replace(with: newPIN, isDefault: newPIN == PIVPadding.pad(PIVFactoryDefaults.pin))
        try persist()
        logger.info("PIN unblocked with the PUK")
        return .success
    }

    /// Compares `presented` with a PIN or PUK, counting a failure before answering.
    ///
    /// A blocked reference answers 6983 without comparing. A wrong value
    /// answers 63Cx with the tries left (63C0 on the try that blocks it); a
    /// right one restores the counter.
    func check(_ reference: WritableKeyPath<PIVCardState, PIVCardState.ReferenceData>,
               against presented: [UInt8]) throws(StatusError) {
        let current = state[keyPath: reference]
        guard current.retriesLeft > 0 else { throw StatusError(.authenticationMethodBlocked) }
        if current.matches(presented) {
            if current.retriesLeft != current.retriesTotal {
                state[keyPath: reference].retriesLeft = current.retriesTotal
                try persist()
            }
            return
        }
        state[keyPath: reference].retriesLeft = current.retriesLeft - 1
        pinVerified = false
        pinVerifiedForAlwaysKey = false
        try persist()
        throw StatusError(.verificationFailed(triesLeft: current.retriesLeft - 1))
    }
}
