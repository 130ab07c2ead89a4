#if canImport(Glibc)
import Glibc
#endif

/// Where the user's session bus is, as sd-bus's `sd_bus_open_user` would
/// find it — `$DBUS_SESSION_BUS_ADDRESS`, else the socket
/// `$XDG_RUNTIME_DIR/bus` — but read from the agent's environment snapshot,
/// and nil when there is none, so an agent without a session (a server, a
/// test, a container) never tries to connect.
enum SessionBusAddress {
    static func find(in environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty, address.utf8.count <= 4096 {
            return address
        }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { return nil }
        let path = runtime + "/bus"
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return "unix:path=" + escape(path)
    }

    /// The D-Bus specification's address escaping: bytes other than
    /// `[-0-9A-Za-z_/.\*]` as `%XX`.
    static func escape(_ value: String) -> String {
        var text = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "*"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789abcdef".unicodeScalars)
                text += "%"
                text.unicodeScalars.append(digits[Int(byte >> 4)])
                text.unicodeScalars.append(digits[Int(byte & 0xf)])
            }
        }
        return text
    }
}
