#if canImport(Glibc)
import Glibc
#endif

/// The names in a directory, read with readdir(3) without reading past its records.
///
/// glibc's readdir returns variable-length records packed in the heap buffer
/// opendir allocated: a record is only as long as its name, so the last ones
/// in a buffer end before `MemoryLayout<dirent>.size` does. Swift imports
/// `d_name` as a 256-element tuple, and using it as a value
/// (`withUnsafeBytes(of: entry.pointee.d_name)`) copies all 256 bytes — a
/// read past the buffer's end (AddressSanitizer: heap-buffer-overflow, READ
/// of size 256), a SIGSEGV when the next page is unmapped. So the name is
/// read in place, through the record's address plus the field's offset, up
/// to its NUL and never past the record's own length `d_reclen`.
public enum DirectoryEntries {
    /// The names in `directory` other than "." and "..", in readdir's order;
    /// nil when it cannot be opened.
    public static func names(in directory: String) -> [String]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = name(of: entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The name in a record readdir returned (bytes that are not UTF-8 are
    /// replaced, so such a name never equals one we made).
    public static func name(of entry: UnsafePointer<dirent>) -> String {
        // A stored field of an imported C struct always has an offset.
        let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        let available = Int(clamping: entry.pointee.d_reclen) - offset
        guard available > 0 else { return "" }
        let start = UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self)
        let length = strnlen(start, available)
        return UnsafeRawBufferPointer(start: start, count: length).withMemoryRebound(to: UInt8.self) {
            String(decoding: $0, as: UTF8.self)
        }
    }
}
