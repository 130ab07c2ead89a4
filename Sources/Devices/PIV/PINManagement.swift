/// `passkey card pin change|unblock`: the PIN and PUK operations, each
/// answering with the tries left.
public enum PINManagement {
    public enum Operation: String, Sendable, Codable {
        case changePIN = "change-pin"
        case changePUK = "change-puk"
        case unblockPIN = "unblock-pin"
    }

    public struct Report: Sendable, Codable, Equatable {
        public var reader: String
        public var operation: Operation
        /// Tries the PIN has left now; nil when the card does not say.
        public var pinTriesLeft: Int?
        /// Tries the PUK has left now; nil when the card does not say.
        public var pukTriesLeft: Int?
    }

    public static func changePIN(session: PIVSession, current: [UInt8], new: [UInt8]) throws(PIVError) -> Report {
        try session.withTransaction { session throws(PIVError) in
            try session.changePIN(current: current, new: new)
            return try report(session, .changePIN)
        }
    }

    public static func changePUK(session: PIVSession, current: [UInt8], new: [UInt8]) throws(PIVError) -> Report {
        try session.withTransaction { session throws(PIVError) in
            try session.changePUK(current: current, new: new)
            return try report(session, .changePUK)
        }
    }

    public static func unblockPIN(session: PIVSession, puk: [UInt8], newPIN: [UInt8]) throws(PIVError) -> Report {
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

    static func report(_ session: PIVSession, _ operation: Operation) throws(PIVError) -> Report {
        var pinTries = try session.pinMetadata()?.retriesLeft
        if pinTries == nil, case .notVerified(let tries) = try session.pinState() { pinTries = tries }
        return Report(reader: session.readerName, operation: operation, pinTriesLeft: pinTries,
                      pukTriesLeft: try session.pukMetadata()?.retriesLeft)
    }
}
