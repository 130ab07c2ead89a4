import Interaction
import Locking

/// The person holding the key, as a test scripts them: PINs from a list, an
/// account by index; every question is recorded, and a confirmation is
/// refused. A question beyond the script throws `ScriptEnded`.
package final class ScriptedKeyHolder: UserInteraction {
    package let pins: Locked<[String]>
    package let account: Int?
    package let pinRequests = Locked<[PINRequest]>([])
    package let accountLists = Locked<[[AccountChoice]]>([])
    package let stages = Locked<[ProgressStage]>([])

    package init(pins: [String] = [], account: Int? = nil) {
        self.pins = Locked(pins)
        self.account = account
    }

    package func progress(_ stage: ProgressStage) { stages.withLock { $0.append(stage) } }

    package func pin(_ request: PINRequest) async throws -> String {
        pinRequests.withLock { $0.append(request) }
        guard let pin = pins.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { throw ScriptEnded("no PIN scripted") }
        return pin
    }

    package func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int {
        accountLists.withLock { $0.append(accounts) }
        guard let account else { throw ScriptEnded("no account choice scripted") }
        return account
    }

    package func confirm(_ request: ConfirmationRequest) async throws -> Bool { false }
}

/// A question the script has no answer for.
package struct ScriptEnded: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// The error `body` threw, or nil.
package func thrownError(_ body: () async throws -> some Any) async -> (any Error)? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}
