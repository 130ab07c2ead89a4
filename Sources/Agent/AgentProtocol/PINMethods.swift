/// `pin.set`: give a security key its first PIN.
public enum PINSetMethod: AgentMethod {
    public static let name = "pin.set"
    public static let answerWait = AnswerWait.person
    public typealias Result = PINStatus

    public struct Params: Codable, Sendable, Equatable {
        public var device: DeviceChoice?
        public var newPin: String

        public init(device: DeviceChoice? = nil, newPin: String) {
            self.device = device
            self.newPin = newPin
        }
    }
}

/// `pin.change`: change a security key's PIN; a wrong current PIN answers
/// `pin_invalid` with `triesLeft`.
public enum PINChangeMethod: AgentMethod {
    public static let name = "pin.change"
    public static let answerWait = AnswerWait.person
    public typealias Result = PINStatus

    public struct Params: Codable, Sendable, Equatable {
        public var device: DeviceChoice?
        public var pin: String
        public var newPin: String

        public init(device: DeviceChoice? = nil, pin: String, newPin: String) {
            self.device = device
            self.pin = pin
            self.newPin = newPin
        }
    }
}

/// The PIN state after a change.
public struct PINStatus: Codable, Sendable, Equatable {
    public var pinSet: Bool
    public var retries: Int?

    public init(pinSet: Bool, retries: Int?) {
        self.pinSet = pinSet
        self.retries = retries
    }
}
