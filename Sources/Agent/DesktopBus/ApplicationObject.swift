import CSystemd

#if canImport(Glibc)
import Glibc
#endif

/// `org.freedesktop.Application` on `DesktopApplication.objectPath`,
/// answered by hand: sd-bus's vtable macros cannot be written in Swift, so
/// the object is registered with `sd_bus_add_object` and each method call
/// is matched here by interface and member. Runs on the bus thread only.
final class ApplicationObject: Sendable {
    /// Gets the URIs of each `Open`, after the launcher has had its answer.
    private let opened: @Sendable ([String]) -> Void

    init(opened: @escaping @Sendable ([String]) -> Void) {
        self.opened = opened
    }

    /// sd-bus's message handler: > 0 answered, 0 not ours (sd-bus answers
    /// UnknownMethod), < 0 with `error` set an error answer.
    func handle(_ message: OpaquePointer, _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        let interface = sd_bus_message_get_interface(message).map { String(cString: $0) }
        let member = sd_bus_message_get_member(message).map { String(cString: $0) }
        switch (interface, member) {
        case (DesktopApplication.applicationInterface?, "Open"?):
            return open(message, error)
        case (DesktopApplication.applicationInterface?, "Activate"?), (DesktopApplication.applicationInterface?, "ActivateAction"?):
            // The agent has no window to raise and no actions: nothing to do.
            return Self.reply(to: message)
        case (DesktopApplication.introspectableInterface?, "Introspect"?):
            return Self.reply(to: message, string: DesktopApplication.introspection)
        default:
            return 0
        }
    }

    private func open(_ message: OpaquePointer, _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        // The session bus admits only this user, but the socket's rule is
        // checked here too: only the agent's own uid may hand it a URL.
        guard Self.senderIsThisUser(message) else {
            return sd_bus_error_set(error, "org.freedesktop.DBus.Error.AccessDenied", "only the agent's own user may open invoke URLs")
        }
        guard sd_bus_message_has_signature(message, "asa{sv}") > 0 else {
            return sd_bus_error_set(error, "org.freedesktop.DBus.Error.InvalidArgs", "Open takes (as uris, a{sv} platform_data)")
        }
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let read = sd_bus_message_read_strv(message, &list)
        guard read >= 0 else { return read }
        let uris = Self.take(list)
        guard uris.count <= DesktopApplication.maxURIsPerOpen else {
            return sd_bus_error_set(error, "org.freedesktop.DBus.Error.InvalidArgs",
                                    "at most \(DesktopApplication.maxURIsPerOpen) URIs in one Open")
        }
        // The launcher is answered at once: an invoke waits for a person
        // (a confirmation, a touch) far longer than a D-Bus call's timeout.
        // Its outcome goes to the log and to the person.
        let answered = Self.reply(to: message)
        if !uris.isEmpty { opened(uris) }
        return answered
    }

    private static func senderIsThisUser(_ message: OpaquePointer) -> Bool {
        var credentials: OpaquePointer?
        // dbus-daemon's GetConnectionCredentials gives the peer's uid
        // (SO_PEERCRED, effective at connect), which sd-bus files as EUID.
        guard sd_bus_query_sender_creds(message, UInt64(clamping: SD_BUS_CREDS_EUID), &credentials) >= 0, let credentials else { return false }
        defer { sd_bus_creds_unref(credentials) }
        var uid = uid_t.max
        return sd_bus_creds_get_euid(credentials, &uid) >= 0 && uid == geteuid()
    }

    /// The strings of a `char **` sd-bus allocated, which is freed here.
    private static func take(_ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        var strings: [String] = []
        var index = 0
        while let item = list[index] {
            strings.append(String(cString: item))
            free(item)
            index += 1
        }
        free(list)
        return strings
    }

    /// An empty method return, or one carrying a single string.
    private static func reply(to message: OpaquePointer, string: String? = nil) -> Int32 {
        var reply: OpaquePointer?
        var result = sd_bus_message_new_method_return(message, &reply)
        guard result >= 0, let reply else { return result }
        defer { sd_bus_message_unref(reply) }
        if let string {
            result = string.withCString { sd_bus_message_append_basic(reply, CChar(UInt8(ascii: "s")), $0) }
            guard result >= 0 else { return result }
        }
        result = sd_bus_send(nil, reply, nil)
        return result < 0 ? result : 1
    }
}
