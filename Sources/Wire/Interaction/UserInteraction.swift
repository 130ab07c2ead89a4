/// How an operation reaches the person at the keyboard while it runs.
///
/// The ceremonies and the vault call it; the CLI answers on its terminal (or
/// pinentry); the agent forwards each question to its socket client as a
/// notification and waits for the answer. Either may throw to stop the
/// operation (e.g. the user cancelled).
public protocol UserInteraction: Sendable {
    /// What the authenticator is doing: a chance to say "Touch your security key…".
    func progress(_ stage: ProgressStage)
    /// Asks for a PIN. Called again after a wrong PIN, with the tries left;
    /// never answered from a cache.
    func pin(_ request: PINRequest) async throws -> String
    /// Several accounts on the key match: which one (an index into `accounts`)?
    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int
    /// Asks the person to allow an operation someone else started (an invoke
    /// URL, a binding link) before any key is touched. True only when the
    /// person said yes; false when they declined. Throws when nothing can
    /// show the question: the caller then refuses, never assumes yes.
    func confirm(_ request: ConfirmationRequest) async throws -> Bool
}
