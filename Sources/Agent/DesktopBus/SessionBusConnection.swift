import CSystemd
import Logging
import Prompts

#if canImport(Glibc)
import Glibc
#endif

/// The agent's connection to the session bus, owning the handler's name.
/// sd-bus objects are not thread-safe: after `open`, only the bus thread
/// (`serve`) touches `bus`, and the message callback runs there too.
final class SessionBusConnection: @unchecked Sendable {
    private let bus: OpaquePointer
    private let logger: Logger

    private init(bus: OpaquePointer, logger: Logger) {
        self.bus = bus
        self.logger = logger
    }

    /// Connects to `address`, serves `object` at the application's path and
    /// takes its name — only if nobody owns it: another agent of this user
    /// (on another socket) keeps it, and no flag lets a later one take it away.
    /// nil, logged, when any of it fails.
    static func open(address: String, object: ApplicationObject, logger: Logger) -> SessionBusConnection? {
        var made: OpaquePointer?
        guard sd_bus_new(&made) >= 0, let bus = made else {
            logger.warning("D-Bus: cannot allocate a bus connection; the URL-scheme handler is off")
            return nil
        }
        func fail(_ what: String, _ result: Int32) -> SessionBusConnection? {
            logger.warning("D-Bus: \(what): \(String(cString: strerror(-result))); the URL-scheme handler is off (the socket works as before)")
            sd_bus_flush_close_unref(bus)
            return nil
        }
        var result = sd_bus_set_address(bus, address)
        if result < 0 { return fail("the session bus address is not usable", result) }
        sd_bus_set_bus_client(bus, 1)
        sd_bus_set_description(bus, "passkey-agent")
        result = sd_bus_start(bus)
        if result < 0 { return fail("cannot connect to the session bus", result) }
        // The object first, so that an Open queued for the name by D-Bus
        // activation finds it the moment the name is ours.
        let userdata = Unmanaged.passRetained(object).toOpaque()  // lives as long as the process
        result = sd_bus_add_object(bus, nil, DesktopApplication.objectPath, { message, userdata, error in
            guard let message, let userdata else { return 0 }
            return Unmanaged<ApplicationObject>.fromOpaque(userdata).takeUnretainedValue().handle(message, error)
        }, userdata)
        if result < 0 { return fail("cannot register \(DesktopApplication.objectPath)", result) }
        result = sd_bus_request_name(bus, DesktopApplication.id, 0)
        if result == -EEXIST {
            logger.info("D-Bus: \(DesktopApplication.id) belongs to another program; invoke URLs opened by the desktop go there")
            sd_bus_flush_close_unref(bus)
            return nil
        }
        if result < 0 { return fail("cannot own \(DesktopApplication.id)", result) }
        logger.info("D-Bus: serving \(DesktopApplication.id) on the session bus (the URL-scheme handler)")
        return SessionBusConnection(bus: bus, logger: logger)
    }

    /// Processes messages until the bus goes away (the session ended, or
    /// the bus daemon stopped); the agent serves its socket on regardless.
    func serve() {
        while true {
            let processed = sd_bus_process(bus, nil)
            if processed < 0 {
                let reason = String(cString: strerror(-processed))
                logger.warning("D-Bus: the session bus connection ended (\(reason)); the URL-scheme handler is off until the agent starts again")
                break
            }
            if processed > 0 { continue }
            let waited = sd_bus_wait(bus, UInt64.max)
            if waited < 0 && waited != -EINTR {
                logger.warning("D-Bus: waiting on the session bus failed (\(String(cString: strerror(-waited)))); the URL-scheme handler is off")
                break
            }
        }
        sd_bus_flush_close_unref(bus)
    }

    /// Runs `serve` on a POSIX thread of its own (sd_bus_wait blocks).
    func serveOnOwnThread() -> Bool {
        let created = OwnThread.detach { self.serve() }
        guard created == 0 else {
            sd_bus_flush_close_unref(bus)  // the name goes with it: nobody would answer for it
            logger.warning("D-Bus: cannot start the bus thread (\(String(cString: strerror(created)))); the URL-scheme handler is off")
            return false
        }
        return true
    }
}
