import ArgumentParser
import Settings

/// Shell completion of an ACCOUNT argument (bash, zsh and fish alike:
/// ArgumentParser's generated scripts call `passkey ---completion` back):
/// the accounts `passkey login` made, read from their settings files, so it
/// works with the vault locked, no agent running and no unlock asked.
/// Accounts stored only with `token put` live in the vault and are not offered.
enum AccountNameCompletion {
    static let kind: CompletionKind = .custom { _, _, prefix in
        names(environment: ProcessEnvironment.current).filter { $0.hasPrefix(prefix) }
    }

    static func names(environment: [String: String]) -> [String] {
        AccountSettingsStore(directory: AgentPaths(environment: environment).accountsDirectory).all().map(\.account)
    }
}
