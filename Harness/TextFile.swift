import FoundationEssentials

/// Logs and small files the harness writes and reads back: a child's
/// standard input, its captured output, a daemon's configuration.
public enum TextFile {
    /// The file's text, or "" when it cannot be read.
    public static func read(_ path: String) -> String {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// What was written to the file from byte `offset` on: a log since a restart.
    public static func tail(of path: String, from offset: Int) -> String {
        guard let data = FileManager.default.contents(atPath: path), data.count >= offset else { return "" }
        return String(decoding: data[offset...], as: UTF8.self)
    }

    /// The file's size in bytes (0 when it is not there): where a log's next lines will start.
    public static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// Replaces the file with `text` (0600).
    public static func write(_ text: String, to path: String) throws(HarnessError) {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw HarnessError("cannot write \(path)")
        }
    }
}
