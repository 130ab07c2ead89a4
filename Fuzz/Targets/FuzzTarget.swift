/// One parser of outside bytes, driven by arbitrary input.
///
/// `run` must never trap, hang or leak on any input: libFuzzer (through
/// `passkey-fuzz` built by `scripts/fuzz`) hunts for inputs that make it, and
/// `FuzzRegressionTests` replays every seed and every input that once did.
/// Besides crashes, a target may check a property the parser promises (a
/// decoded value re-encodes to what decodes to it again, an accepted plain-http
/// URL names this machine) and report a breach as a `FuzzFinding`.
public struct FuzzTarget: Sendable {
    /// The name on the command line and the folder under Fuzz/Corpus and Fuzz/Regressions.
    public let name: String
    /// What the input bytes are, for `passkey-fuzz --list` and docs/FUZZING.md.
    public let summary: String
    /// libFuzzer's `-max_len` for this target: room for the largest real input, no more.
    public let maximumLength: Int
    /// Feeds one input through the parser; what it throws is a finding (a `FuzzFinding`).
    public let run: @Sendable ([UInt8]) throws -> Void
    /// Valid inputs made by the real code (a real CTAP request, a real
    /// clientDataJSON, …), named; `passkey-fuzz seeds DIR` writes them.
    public let seeds: @Sendable () async throws -> [Seed]

    public init(name: String, summary: String, maximumLength: Int,
                seeds: @escaping @Sendable () async throws -> [Seed],
                run: @escaping @Sendable ([UInt8]) throws -> Void) {
        self.name = name
        self.summary = summary
        self.maximumLength = maximumLength
        self.seeds = seeds
        self.run = run
    }
}

/// A named seed input.
public struct Seed: Sendable {
    public var name: String
    public var bytes: [UInt8]
    public init(_ name: String, _ bytes: [UInt8]) { self.name = name; self.bytes = bytes }
    public init(_ name: String, text: String) { self.init(name, Array(text.utf8)) }
}

/// A property a parser promised and broke for some input (a crash in all but name).
public struct FuzzFinding: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Checks a property; a breach is a finding, reported with what was seen.
@inline(__always)
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFinding) {
    if !condition { throw FuzzFinding(message()) }
}
