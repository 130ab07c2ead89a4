import Reports

/// `passkey card pin change|unblock`: the PIN and PUK operations, each
/// answering with the tries left.
public enum PINManagement {
    public typealias Operation = CardPINReport.Operation

    public static func changePIN(session: PIVSession, current: [UInt8], new: [UInt8]) throws(PIVError) -> CardPINReport {
        try session.withTransaction { session throws(PIVError) in
            try session.changePIN(current: current, new: new)
            return try report(session, .changePIN)
        }
    }

    public static func changePUK(session: PIVSession, current: [UInt8], new: [UInt8]) throws(PIVError) -> CardPINReport {
        try session.withTransaction { session throws(PIVError) in
            try session.changePUK(current: current, new: new)
            return try report(session, .changePUK)
        }
    }

    public static func unblockPIN(session: PIVSession, puk: [UInt8], newPIN: [UInt8]) throws(PIVError) -> CardPINReport {
        try session.withTransaction { session throws(PIVError) in
            try session.unblockPIN(puk: puk, newPIN: newPIN)
            return try report(session, .unblockPIN)
        }
    }

    /// The counters as they stand, without the operation (for the prompts' "N tries left").
    public static func status(session: PIVSession) throws(PIVError) -> (pinTriesLeft: Int?, pukTriesLeft: Int?) {
        let report = try report(session, .changePIN)
        return (report.pinTriesLeft, report.pukTriesLeft)
    }

    static func report(_ session: PIVSession, _ operation: Operation) throws(PIVError) -> CardPINReport {
        var pinTries = try session.pinMetadata()?.retriesLeft
        if pinTries == nil, case .notVerified(let tries) = try session.pinState() { pinTries = tries }
        return CardPINReport(reader: session.readerName, operation: operation, pinTriesLeft: pinTries,
                      pukTriesLeft: try session.pukMetadata()?.retriesLeft)
    }
}
