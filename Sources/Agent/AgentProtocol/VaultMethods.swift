/// Which key slot to open or make, and how to reach its device. One type for
/// `agent.unlock`, `vault.init` and `vault.addSlot`.
public struct VaultSlotParams: Codable, Sendable, Equatable {
    /// `piv` or `fido2`. For `agent.unlock` it may be left out: the vault's
    /// only kind of slot, else `piv` when one of its cards is present, else `fido2`.
    public var slot: String?
    /// The PIV card's PIN, or the FIDO2 key's PIN, when the caller has it.
    public var pin: String?
    /// `piv`: the reader holding the card (default: the card is looked for in every reader).
    public var reader: String?
    /// `fido2`: which security key (see `DeviceChoice`).
    public var device: DeviceChoice?
    /// The client answers `pin` questions (docs/PROTOCOL.md).
    public var interactive: Bool?

    public init(slot: String? = nil, pin: String? = nil, reader: String? = nil, device: DeviceChoice? = nil,
                interactive: Bool? = nil) {
        self.slot = slot
        self.pin = pin
        self.reader = reader
        self.device = device
        self.interactive = interactive
    }
}

/// `agent.unlock`: opens the vault with a PIV card (PIN) or a FIDO2 key (touch, UV or PIN).
public enum AgentUnlockMethod: AgentMethod {
    public static let name = "agent.unlock"
    public static let answerWait = AnswerWait.person
    public typealias Params = VaultSlotParams
    public typealias Result = VaultStatusReport
}

/// `agent.lock`: closes the vault and wipes its key from memory.
public enum AgentLockMethod: AgentMethod {
    public static let name = "agent.lock"
    public static let answerWait = AnswerWait.nothing
    public typealias Params = NoParams
    public typealias Result = LockResult
}

public struct LockResult: Codable, Sendable, Equatable {
    /// Always true afterwards.
    public var locked: Bool
    /// Whether the vault was unlocked before this call.
    public var wasUnlocked: Bool

    public init(locked: Bool, wasUnlocked: Bool) {
        self.locked = locked
        self.wasUnlocked = wasUnlocked
    }
}

/// `vault.init`: creates the vault with its first key slot and leaves it unlocked.
public enum VaultInitMethod: AgentMethod {
    public static let name = "vault.init"
    public static let answerWait = AnswerWait.person
    public typealias Params = VaultSlotParams
    public typealias Result = VaultStatusReport
}

/// `vault.addSlot`: adds a key slot (the vault must be unlocked).
public enum VaultAddSlotMethod: AgentMethod {
    public static let name = "vault.addSlot"
    public static let answerWait = AnswerWait.person
    public typealias Params = VaultSlotParams
    public typealias Result = VaultStatusReport
}

/// `vault.removeSlot`: removes a key slot by number (the vault must be
/// unlocked); the last slot is never removed.
public enum VaultRemoveSlotMethod: AgentMethod {
    public static let name = "vault.removeSlot"
    public static let answerWait = AnswerWait.machine
    public typealias Result = VaultStatusReport

    public struct Params: Codable, Sendable, Equatable {
        public var slot: Int

        public init(slot: Int) { self.slot = slot }
    }
}

/// `vault.status`: the vault's slots, entry count and lock state. No secrets.
public enum VaultStatusMethod: AgentMethod {
    public static let name = "vault.status"
    public static let answerWait = AnswerWait.machine
    public typealias Params = NoParams
    public typealias Result = VaultStatusReport
}

/// What `vault status` shows.
public struct VaultStatusReport: Codable, Sendable, Equatable {
    /// The vault directory.
    public var path: String
    /// False when no vault has been created yet (then nothing else is set).
    public var initialized: Bool
    public var formatVersion: Int?
    public var locked: Bool
    /// The slot that unlocked it, while unlocked.
    public var unlockedWith: Int?
    /// Why it last locked (`agent.lock`, SIGHUP, idle, card removed), while locked.
    public var lockReason: String?
    /// Seconds of inactivity before the agent locks it (nil: never, or not the agent).
    public var idleLockSeconds: Int?
    public var entries: Int
    public var slots: [KeySlotSummary]

    public init(path: String, initialized: Bool, formatVersion: Int?, locked: Bool, unlockedWith: Int?,
                lockReason: String? = nil, idleLockSeconds: Int?, entries: Int, slots: [KeySlotSummary]) {
        self.path = path
        self.initialized = initialized
        self.formatVersion = formatVersion
        self.locked = locked
        self.unlockedWith = unlockedWith
        self.lockReason = lockReason
        self.idleLockSeconds = idleLockSeconds
        self.entries = entries
        self.slots = slots
    }
}

/// One key slot as `vault status` lists it: which device, never a secret.
public struct KeySlotSummary: Codable, Sendable, Equatable {
    public var id: Int
    /// `piv` or `fido2`.
    public var type: String
    /// One line: "the card with serial 12345678 (last seen in …)".
    public var description: String
    // piv
    public var reader: String?
    public var serialNumber: UInt32?
    public var chuidGuid: String?
    /// The card's 9D public key (uncompressed point, hex): public, and what the card is recognised by.
    public var cardPublicKey: String?
    // fido2
    public var device: String?
    public var aaguid: String?
    public var userVerification: Bool?
    public var credProtect: Int?

    public init(id: Int, type: String, description: String, reader: String? = nil, serialNumber: UInt32? = nil,
                chuidGuid: String? = nil, cardPublicKey: String? = nil, device: String? = nil, aaguid: String? = nil,
                userVerification: Bool? = nil, credProtect: Int? = nil) {
        self.id = id
        self.type = type
        self.description = description
        self.reader = reader
        self.serialNumber = serialNumber
        self.chuidGuid = chuidGuid
        self.cardPublicKey = cardPublicKey
        self.device = device
        self.aaguid = aaguid
        self.userVerification = userVerification
        self.credProtect = credProtect
    }
}

/// The vault's state in `agent.status`.
public struct VaultLockState: Codable, Sendable, Equatable {
    public var initialized: Bool
    public var locked: Bool
    /// The slot that unlocked it, while unlocked.
    public var unlockedWith: Int?

    public init(initialized: Bool, locked: Bool, unlockedWith: Int?) {
        self.initialized = initialized
        self.locked = locked
        self.unlockedWith = unlockedWith
    }
}
