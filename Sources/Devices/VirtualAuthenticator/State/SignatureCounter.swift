/// The one global signature counter, persisted by reservation.
///
/// Writing the state file on every assertion would cost an fsync each time.
/// Instead the file holds a *ceiling*: every value up to it may have been
/// handed out. After a restart counting resumes above the ceiling, and when the
/// counter reaches the ceiling a new ceiling one block higher is persisted
/// before the next value is used. A crash therefore skips at most one block of
/// values and never repeats one: the counter stays strictly increasing.
struct SignatureCounter {
    /// Values reserved per state-file write.
    static let block: UInt32 = 1024

    /// The last value handed out.
    private(set) var current: UInt32
    /// The persisted ceiling.
    private(set) var ceiling: UInt32

    /// Resumes from a persisted ceiling: anything at or below it may be used already.
    init(persistedCeiling: UInt32) {
        current = persistedCeiling
        ceiling = persistedCeiling
    }

    /// The next value; `persist` is called (and must succeed) only when a new
    /// ceiling has to be reserved. At UInt32.max the counter stays there.
    mutating func next(persist: (UInt32) throws(CTAPStatus) -> Void) throws(CTAPStatus) -> UInt32 {
        if current == UInt32.max { return current }
        let value = current + 1
        if value > ceiling {
            let newCeiling = value.addingReportingOverflow(Self.block - 1)
            let reserved = newCeiling.overflow ? UInt32.max : newCeiling.partialValue
            try persist(reserved)
            ceiling = reserved
        }
        current = value
        return value
    }
}
