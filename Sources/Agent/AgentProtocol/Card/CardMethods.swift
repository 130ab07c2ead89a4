/// `card.list`: readers, cards, their applications, PIN tries and keys.
public enum CardListMethod: AgentMethod {
    public static let name = "card.list"
    public static let answerWait = AnswerWait.person
    public typealias Params = NoParams
    public typealias Result = CardInventoryReport
}

/// `card.plan`: what `card.setup` would do to the card in `reader`; changes nothing.
public enum CardPlanMethod: AgentMethod {
    public static let name = "card.plan"
    public static let answerWait = AnswerWait.person
    public typealias Result = CardSetupPlan

    public struct Params: Codable, Sendable, Equatable {
        public var reader: String
        /// Setup will use the factory management key (no `managementKey` given).
        public var defaultManagementKey: Bool

        public init(reader: String, defaultManagementKey: Bool) {
            self.reader = reader
            self.defaultManagementKey = defaultManagementKey
        }
    }
}

/// `card.setup`: a P-256 key in slot 9D and a self-signed certificate for it.
public enum CardSetupMethod: AgentMethod {
    public static let name = "card.setup"
    public static let answerWait = AnswerWait.person
    public typealias Result = CardSetupReport

    public struct Params: Codable, Sendable, Equatable {
        public var reader: String
        public var pin: String
        /// The management key in hex; the factory default when absent.
        public var managementKey: String?
        /// Replace a key already in 9D.
        public var force: Bool

        public init(reader: String, pin: String, managementKey: String? = nil, force: Bool = false) {
            self.reader = reader
            self.pin = pin
            self.managementKey = managementKey
            self.force = force
        }
    }
}

/// `card.pinStatus`: tries left for the PIN and the PUK (costs no try).
public enum CardPINStatusMethod: AgentMethod {
    public static let name = "card.pinStatus"
    public static let answerWait = AnswerWait.person

    public struct Params: Codable, Sendable, Equatable {
        /// The reader; the only PIV card present when absent.
        public var reader: String?
        public init(reader: String? = nil) { self.reader = reader }
    }

    public struct Result: Codable, Sendable, Equatable {
        public var reader: String
        public var pinTriesLeft: Int?
        public var pukTriesLeft: Int?

        public init(reader: String, pinTriesLeft: Int?, pukTriesLeft: Int?) {
            self.reader = reader
            self.pinTriesLeft = pinTriesLeft
            self.pukTriesLeft = pukTriesLeft
        }
    }
}

/// `card.changePIN`: change the PIN (or, with `puk: true`, the PUK). Every answer carries the tries left.
public enum CardChangePINMethod: AgentMethod {
    public static let name = "card.changePIN"
    public static let answerWait = AnswerWait.person
    public typealias Result = CardPINReport

    public struct Params: Codable, Sendable, Equatable {
        public var reader: String?
        public var puk: Bool
        public var current: String
        public var new: String

        public init(reader: String? = nil, puk: Bool = false, current: String, new: String) {
            self.reader = reader
            self.puk = puk
            self.current = current
            self.new = new
        }
    }
}

/// `card.unblockPIN`: a new PIN set with the PUK.
public enum CardUnblockPINMethod: AgentMethod {
    public static let name = "card.unblockPIN"
    public static let answerWait = AnswerWait.person
    public typealias Result = CardPINReport

    public struct Params: Codable, Sendable, Equatable {
        public var reader: String?
        public var puk: String
        public var newPin: String

        public init(reader: String? = nil, puk: String, newPin: String) {
            self.reader = reader
            self.puk = puk
            self.newPin = newPin
        }
    }
}

/// `card.replaceManagementKey`: a new random management key (AES-192 on
/// firmware 5.4 or later, else 3DES), returned once — it is a secret.
public enum CardReplaceManagementKeyMethod: AgentMethod {
    public static let name = "card.replaceManagementKey"
    public static let answerWait = AnswerWait.person

    public struct Params: Codable, Sendable, Equatable {
        public var reader: String
        /// The current management key in hex; the factory default when absent.
        public var managementKey: String?

        public init(reader: String, managementKey: String? = nil) {
            self.reader = reader
            self.managementKey = managementKey
        }
    }

    public struct Result: Codable, Sendable, Equatable {
        public var algorithm: String
        public var managementKey: String

        public init(algorithm: String, managementKey: String) {
            self.algorithm = algorithm
            self.managementKey = managementKey
        }
    }
}
