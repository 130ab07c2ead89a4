import HTTPTypes

/// Why an IDX request was refused, and where the message goes: alone (the
/// stateHandle is dead), at the top of the transaction's state, or on one
/// field of its remediation, as Okta's answers place them.
struct IDXRefusal: Error, Sendable {
    enum Place: Sendable {
        case session
        /// Nil transaction: the request was unreadable before a transaction was found.
        case topLevel(IDXTransactionRecord?)
        case field(IDXTransactionRecord, path: [String])
    }

    var message: ION.Message
    var status: HTTPResponse.Status
    var place: Place

    /// `idx.session.expired`: the stateHandle is unknown or past `expiresAt`; start again.
    static let sessionExpired = IDXRefusal(message: ION.Message("The session has expired.", key: "idx.session.expired"),
                                           status: .unauthorized, place: .session)

    /// A request that cannot be read; the devserver's own i18n key.
    static func badRequest(_ why: String, _ transaction: IDXTransactionRecord? = nil) -> IDXRefusal {
        IDXRefusal(message: ION.Message(why, key: "devserver.idx.invalid_request"), status: .badRequest, place: .topLevel(transaction))
    }

    static func topLevel(_ message: String, key: String, _ transaction: IDXTransactionRecord,
                         status: HTTPResponse.Status = .badRequest) -> IDXRefusal {
        IDXRefusal(message: ION.Message(message, key: key), status: status, place: .topLevel(transaction))
    }

    static func field(_ path: [String], _ message: String, key: String, _ transaction: IDXTransactionRecord,
                      status: HTTPResponse.Status = .badRequest) -> IDXRefusal {
        IDXRefusal(message: ION.Message(message, key: key), status: status, place: .field(transaction, path: path))
    }
}
