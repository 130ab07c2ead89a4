import CPCSC

/// What pcscd reports about one reader: whether a card is in it, its ATR, and
/// whether other programs use it.
public struct ReaderStatus: Sendable, Equatable {
    public let name: String
    public let cardPresent: Bool
    /// The card's Answer To Reset; empty without a card.
    public let atr: [UInt8]
    /// Another connection (possibly ours) has the card open in shared mode.
    public let inUse: Bool
    /// Another program holds the card exclusively.
    public let exclusive: Bool
    /// A card is in the reader but does not answer.
    public let mute: Bool
    /// pcsc-lite's event state word, fed back as the current state when waiting for the next change.
    let eventState: DWORD

    init(name: String, eventState: DWORD, atr: [UInt8]) {
        self.name = name
        self.eventState = eventState
        self.cardPresent = eventState & DWORD(SCARD_STATE_PRESENT) != 0
            && eventState & DWORD(SCARD_STATE_MUTE) == 0
        self.atr = cardPresent ? atr : []
        self.inUse = eventState & DWORD(SCARD_STATE_INUSE) != 0
        self.exclusive = eventState & DWORD(SCARD_STATE_EXCLUSIVE) != 0
        self.mute = eventState & DWORD(SCARD_STATE_MUTE) != 0
    }

    /// The number pcsc-lite counts card insertions and removals with (upper 16 bits of the state word).
    var eventCount: Int { Int((eventState >> 16) & 0xFFFF) }
}
