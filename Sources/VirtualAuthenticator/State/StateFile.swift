import FoundationEssentials
import SecureFiles
import WebAuthn

/// The one JSON file that holds an authenticator's state.
///
/// It holds private keys, so it is a `SecureFile`: 0600 in a directory
/// created 0700, every write atomic, so a crash at any instant leaves the old
/// or the new state, never a torn one. A file that exists but cannot be read
/// or parsed is an error naming the file; it is never silently replaced.
struct StateFile {
    let path: String

    /// Larger than any state this authenticator writes (100 credentials ≈ 60 KiB).
    static let maximumBytes = 4 << 20

    /// The stored state, or nil if there is no file yet.
    func load() throws(VirtualAuthenticatorError) -> PersistedState? {
        let stored: [UInt8]?
        do { stored = try SecureFile.read(path, limit: Self.maximumBytes) } catch { throw stateError(error) }
        guard let bytes = stored else { return nil }
        if bytes.isEmpty { throw .stateCorrupt(path: path, reason: "the file is empty") }
        let state: PersistedState
        do {
            state = try JSONDecoder().decode(PersistedState.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw .stateCorrupt(path: path, reason: Self.describe(error))
        } catch {
            throw .stateCorrupt(path: path, reason: "not valid JSON")
        }
        return state
    }

    /// Replaces the state file atomically.
    func save(_ state: PersistedState) throws(VirtualAuthenticatorError) {
        let bytes = try encode(state)
        do { try SecureFile.write(bytes, to: path) } catch { throw stateError(error) }
    }

    /// Writes the first state file, unless one appeared meanwhile (another
    /// instance got there first): then returns false and leaves it alone, so two
    /// authenticators starting at once cannot end up with different master secrets.
    func create(_ state: PersistedState) throws(VirtualAuthenticatorError) -> Bool {
        let bytes = try encode(state)
        do { return try SecureFile.create(bytes, at: path) } catch { throw stateError(error) }
    }

    private func encode(_ state: PersistedState) throws(VirtualAuthenticatorError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do { return Array(try encoder.encode(state)) } catch {
            throw .stateNotWritable(path: path, reason: "cannot encode the state")
        }
    }

    /// A file-level failure in this layer's terms.
    private func stateError(_ error: SecureFileError) -> VirtualAuthenticatorError {
        switch error {
        case .unreadable, .notPrivate: return .stateUnreadable(path: path, reason: error.reason(about: path))
        case .tooLarge: return .stateCorrupt(path: path, reason: error.reason)
        case .notWritable: return .stateNotWritable(path: path, reason: error.reason(about: path))
        }
    }

    /// Names the JSON member that failed, never its value (values are secrets).
    static func describe(_ error: DecodingError) -> String {
        func pathString(_ path: [any CodingKey]) -> String {
            let text = DecodingErrorText.memberPath(path)
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = pathString(context.codingPath)
            return "member \(key.stringValue) is missing" + (context.codingPath.isEmpty ? "" : " in \(parent)")
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(pathString(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(pathString(context.codingPath)) is not valid"
        @unknown default:
            return "not a valid state document"
        }
    }
}
