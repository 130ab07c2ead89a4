import FoundationEssentials
import SecureFiles

/// Reads config.toml the way ssh reads ~/.ssh/config (SecureFiles'
/// `.configuration` trust): it may be a symlink (dotfile managers make
/// those), but it must end at a regular file that we (or root) own and that
/// nobody else may write — the file names devices, state files and servers,
/// so another user able to change it could redirect them. A FIFO or a device
/// there must not hang the agent.
enum ConfigFile {
    static let maxBytes = 1 << 20

    /// The file's bytes; nil when it does not exist.
    static func contents(of path: String) throws(SettingsError) -> Data? {
        do {
            return try SecureFile.read(path, limit: maxBytes, trust: .configuration).map { Data($0) }
        } catch {
            throw .unreadable(path, reason: error.reason)
        }
    }
}
