// `token.get` whole, in one file as libfido2 keeps one CTAP command per
// file: the method and its params and result as every client and the
// agent's handler see them, then the same request and answer read and
// written by hand for the command scripts run in a loop.

/// `token.get`: an access token that stays valid for `minValid` seconds,
/// refreshed first when needed. The only method that returns a token.
public enum TokenGetMethod: AgentMethod {
    public static let name = "token.get"
    public static let answerWait = AnswerWait.machine
    public typealias Result = AccessTokenResult
    /// Seconds a token must stay valid when `minValid` is not given (the CLI's `--min-valid` default too).
    public static let defaultMinValid = 60

    public struct Params: Codable, Sendable, Equatable {
        public var account: String
        /// Seconds the token must stay valid (default `defaultMinValid`).
        public var minValid: Int?
        /// Space-separated scopes to narrow the access token to: one refresh
        /// with `scope` (RFC 6749 §6), answered without being stored.
        public var scope: String?
        /// Also answer the stored ID token (`idToken`).
        public var idToken: Bool?

        public init(account: String, minValid: Int? = nil, scope: String? = nil, idToken: Bool? = nil) {
            self.account = account
            self.minValid = minValid
            self.scope = scope
            self.idToken = idToken
        }
    }
}

public struct AccessTokenResult: Codable, Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    /// Seconds since 1970; absent when the server gave no lifetime.
    public var expiresAt: Int64?
    /// Whether this call refreshed the token (or joined a refresh in flight).
    public var refreshed: Bool
    /// The access token's scope, when the server said.
    public var scope: String?
    /// The ID token, only when asked for with `idToken: true`.
    public var idToken: String?

    public init(accessToken: String, tokenType: String, expiresAt: Int64?, refreshed: Bool,
                scope: String? = nil, idToken: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.refreshed = refreshed
        self.scope = scope
        self.idToken = idToken
    }
}

/// `token.get`'s request and answer read and written by hand, for the one
/// command scripts run in a loop (`passkey token get ACCOUNT`): no JSONEncoder
/// or JSONDecoder, whose first use in a process instantiates their generic
/// types by mangled name and scans the binary's thousands of conformance
/// records — most of what that command cost (docs/BENCHMARKS.md, "peers").
/// The agent reads the same plain request form by hand too
/// (`readRequest`), before any JSONDecoder, when it can answer from memory.
///
/// The answer is read strictly: exactly the agent's usual success line — an
/// object with `jsonrpc` "2.0", this `id` and a `result` of
/// `AccessTokenResult`'s members, printable-ASCII strings (only `\/` escaped),
/// integers, booleans and nulls, no member twice, nothing else. Anything
/// else is nil, and the caller goes the usual way, where JSONDecoder reads
/// it (the fuzz target `token-answer` checks that whatever this reads,
/// JSONDecoder reads the same).
public enum TokenGetWire {
    /// The request line (newline included), or nil when `account` holds
    /// anything but printable ASCII other than `"` and `\` (then JSONEncoder's
    /// escaping is needed: the usual way).
    public static func request(id: Int64, account: String, minValid: Int) -> [UInt8]? {
        guard !account.isEmpty, account.utf8.allSatisfy({ (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        return Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"token.get","params":{"account":"\#(account)","minValid":\#(minValid)}}"#.utf8)
            + [UInt8(ascii: "\n")]
    }

    /// A request line in the plain form `request(id:account:minValid:)`
    /// writes — in any member order, with any JSON spacing: an object of
    /// exactly `jsonrpc` "2.0", an integer `id`, `method` "token.get" and
    /// `params`, an object of `account` and optionally `minValid` (an
    /// integer within ±2^53), `scope` (a string) and `idToken` (a boolean); strings of
    /// printable ASCII (only `\/` escaped), no member twice, no nulls.
    /// Anything else is nil, and the line goes the usual way (RequestParser),
    /// which also gives every error. The fuzz target `token-request` checks
    /// that whatever this reads, RequestParser reads the same.
    public static func readRequest(_ line: [UInt8]) -> (id: Int64, params: TokenGetMethod.Params)? {
        guard line.count <= maxRequestBytes else { return nil }
        var reader = Reader(bytes: line)
        guard let top = reader.object(allowingNested: true), reader.atEnd, top.count == 4,
              case .string("2.0")? = member("jsonrpc", of: top), case .integer(let id)? = member("id", of: top),
              case .string(TokenGetMethod.name)? = member("method", of: top),
              case .object(let fields)? = member("params", of: top) else { return nil }
        var account: String?, minValid: Int?, scope: String?, idToken: Bool?
        for (key, value) in fields {
            switch (key, value) {
            case ("account", .string(let text)): account = text
            // Within ±2^53 only: the usual way holds params numbers as Doubles (`JSONValue`), exact up to there.
            case ("minValid", .integer(let seconds)) where seconds > -Self.exactInDouble && seconds < Self.exactInDouble:
                minValid = Int(exactly: seconds)
            case ("scope", .string(let text)): scope = text
            case ("idToken", .boolean(let flag)): idToken = flag
            default: return nil
            }
        }
        guard let account else { return nil }
        return (id, TokenGetMethod.Params(account: account, minValid: minValid, scope: scope, idToken: idToken))
    }

    /// Longer lines are never read by hand (`readRequest` says nil to
    /// them): a plain `token.get` is a few hundred bytes, and the agent need
    /// not copy a megabyte `token.put` line only to hand it on.
    public static let maxRequestBytes = 4096

    /// 2^53: integers in params beyond it read differently the usual way (the fuzz target found it).
    static let exactInDouble: Int64 = 1 << 53

    /// The result of an answer line to request `id`, or nil for anything
    /// but a plain success line (see above).
    public static func answer(_ line: [UInt8], id: Int64) -> AccessTokenResult? {
        var reader = Reader(bytes: line)
        guard let top = reader.object(allowingNested: true), reader.atEnd, top.count == 3,
              case .string("2.0")? = member("jsonrpc", of: top), case .integer(id)? = member("id", of: top),
              case .object(let result)? = member("result", of: top) else { return nil }
        var accessToken: String?, tokenType: String?, refreshed: Bool?
        var expiresAt: Int64?, scope: String?, idToken: String?
        for (key, value) in result {
            switch (key, value) {
            case ("accessToken", .string(let text)): accessToken = text
            case ("tokenType", .string(let text)): tokenType = text
            case ("refreshed", .boolean(let flag)): refreshed = flag
            case ("expiresAt", .integer(let seconds)): expiresAt = seconds
            case ("scope", .string(let text)): scope = text
            case ("idToken", .string(let text)): idToken = text
            case ("expiresAt", .null), ("scope", .null), ("idToken", .null): continue
            default: return nil
            }
        }
        guard let accessToken, let tokenType, let refreshed else { return nil }
        return AccessTokenResult(accessToken: accessToken, tokenType: tokenType, expiresAt: expiresAt, refreshed: refreshed,
                                 scope: scope, idToken: idToken)
    }

    /// Members in order, as an array: a dictionary's first use would make
    /// the runtime look up `String: Hashable`, the very cost avoided here.
    typealias Members = [(key: String, value: Value)]

    enum Value {
        case string(String)
        case integer(Int64)
        case boolean(Bool)
        case null
        case object(Members)
    }

    private static func member(_ key: String, of members: Members) -> Value? {
        for member in members where member.key == key { return member.value }
        return nil
    }

    /// The restricted grammar above, over bytes; nil at the first thing outside it.
    struct Reader {
        /// More members than either form has: the duplicate check is
        /// quadratic, so an object with thousands is refused at once.
        static let maxMembers = 8

        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool {
            mutating get {
                skipSpace()
                return index == bytes.count
            }
        }

        mutating func object(allowingNested: Bool) -> Members? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: Members = []
            skipSpace()
            if take(UInt8(ascii: "}")) { return members }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard members.count < Self.maxMembers, take(UInt8(ascii: ":")), let value = value(allowingNested: allowingNested),
                      !members.contains(where: { $0.key == key }) else { return nil }
                members.append((key, value))
                skipSpace()
                if take(UInt8(ascii: "}")) { return members }
                guard take(UInt8(ascii: ",")) else { return nil }
            }
        }

        private mutating func value(allowingNested: Bool) -> Value? {
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "{"): return allowingNested ? object(allowingNested: false).map(Value.object) : nil
            case UInt8(ascii: "t"): return literal("true") ? .boolean(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .boolean(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return integer().map(Value.integer)
            }
        }

        /// Printable ASCII; `\/` is the only escape taken.
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "/") else { return nil }
                    index += 1
                    text.append(UInt8(ascii: "/"))
                case 0x20...0x7E: text.append(byte)
                default: return nil
                }
            }
            return nil
        }

        /// `-?[0-9]+` without leading zeros, within Int64.
        private mutating func integer() -> Int64? {
            let negative = take(UInt8(ascii: "-"))
            let first = index
            var magnitude: Int64 = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                let digit = Int64(bytes[index] - UInt8(ascii: "0"))
                let (times, overflowed) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflowedAgain) = times.addingReportingOverflow(digit)
                guard !overflowed, !overflowedAgain else { return nil }
                magnitude = sum
                index += 1
            }
            let digits = index - first
            guard digits > 0, digits == 1 || bytes[first] != UInt8(ascii: "0") else { return nil }
            // A following '.', 'e' or 'E' makes it a number JSONDecoder reads differently: not ours.
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e") { return nil }
            return negative ? -magnitude : magnitude
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }
    }
}
