import FoundationEssentials

/// Reading corpus folders: what the replay driver and FuzzRegressionTests share.
public enum CorpusFiles {
    /// `path` itself if it is a file, else the files directly in it, sorted
    /// (hidden files such as .gitkeep left out).
    public static func list(_ path: String) -> [String] {
        var isDirectory: Bool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }
    }

    public static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }
}
