import FoundationEssentials
import Locking
import VirtualAuthenticator

/// The card's persistent memory, shared by its applets: one JSON document in
/// the state file, written whole (atomically) after every change any applet
/// makes, so the PIV applet's write keeps the FIDO2 applet's part and back.
///
/// Layout: the PIV applet's members at the top level, as the file had them
/// before the card had a FIDO2 applet (`format` 1), and the FIDO2 applet's
/// state under `fido2`, a document with its own `format` (the virtual USB
/// authenticator's state file layout). A file without `fido2` loads as it
/// always did; the FIDO2 applet then starts factory-new. A card with only the
/// FIDO2 applet writes no PIV members.
///
/// Thread-safe: the FIDO2 applet saves from the thread that runs a request
/// while the card's thread goes on answering the reader.
public final class CardMemory: Sendable {
    /// The state file, or nil for a card that lives in memory only.
    public let file: CardStateFile?
    private let sections: Locked<Sections>

    struct Sections: Sendable {
        var piv: PIVCardState?
        var fido2: AuthenticatorStateDocument?
    }

    /// Reads the state file (a missing file is an empty card).
    public init(file: CardStateFile?) throws(VirtualCardError) {
        self.file = file
        var loaded = Sections()
        if let file, let contents = try file.read() {
            do {
                let document = try JSONDecoder().decode(CardStateDocument.self, from: Data(contents))
                loaded = Sections(piv: document.piv, fido2: document.fido2)
            } catch {
                throw .invalidState(path: file.path, reason: "\(error)")
            }
        }
        sections = Locked(loaded)
    }

    var piv: PIVCardState? { sections.withLock { $0.piv } }
    var fido2: AuthenticatorStateDocument? { sections.withLock { $0.fido2 } }

    /// Applies `change` and writes the whole document; if the write fails the
    /// memory keeps what it had, and the error says why.
    func update(_ change: (inout Sections) -> Void) throws(VirtualCardError) {
        try sections.withLock { (current) throws(VirtualCardError) in
            var next = current
            change(&next)
            if let file {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                let data: Data
                do {
                    data = try encoder.encode(CardStateDocument(piv: next.piv, fido2: next.fido2))
                } catch {
                    throw .stateFile(path: file.path, reason: "cannot encode the state: \(error)")
                }
                try file.write(Array(data))
            }
            current = next
        }
    }
}

/// The state file's JSON document: the PIV members at the top level, `fido2` beside them.
struct CardStateDocument: Codable {
    var piv: PIVCardState?
    var fido2: AuthenticatorStateDocument?

    private enum Member: String, CodingKey {
        /// Every PIV state has it (the PIV layout's version).
        case format
        case fido2
    }

    init(piv: PIVCardState?, fido2: AuthenticatorStateDocument?) {
        self.piv = piv
        self.fido2 = fido2
    }

    init(from decoder: any Decoder) throws {
        let members = try decoder.container(keyedBy: Member.self)
        piv = members.contains(.format) ? try PIVCardState(from: decoder) : nil
        fido2 = try members.decodeIfPresent(AuthenticatorStateDocument.self, forKey: .fido2)
    }

    func encode(to encoder: any Encoder) throws {
        // Both write into the one top-level object.
        try piv?.encode(to: encoder)
        var members = encoder.container(keyedBy: Member.self)
        try members.encodeIfPresent(fido2, forKey: .fido2)
    }
}
