#if canImport(Glibc)
import Glibc
#endif

/// What a directory tree takes on disk: the bytes its files hold, and the
/// space the file system allocated for them (whole blocks, directories
/// included) — the figure `du` shows and the one a full disk feels.
struct DiskUsage: Sendable {
    var files = 0
    /// The sum of the regular files' sizes.
    var fileBytes: Double = 0
    /// Blocks allocated to every file and directory in the tree, in bytes.
    var allocatedBytes: Double = 0

    /// Walks `path` (not following symbolic links).
    static func of(_ path: String) -> DiskUsage {
        var usage = DiskUsage()
        usage.add(path)
        return usage
    }

    private mutating func add(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        allocatedBytes += Double(info.st_blocks) * 512  // st_blocks counts 512-byte units (stat(2))
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            files += 1
            fileBytes += Double(info.st_size)
        case S_IFDIR:
            guard let directory = opendir(path) else { return }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                // Read in place, up to its NUL: a readdir record can end before a whole dirent,
                // so copying d_name (a 256-byte tuple) reads past it (SecureFiles' DirectoryEntries).
                let field = UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                let name = String(cString: field.assumingMemoryBound(to: CChar.self))
                if name != "." && name != ".." { add(path + "/" + name) }
            }
        default:
            break
        }
    }
}
