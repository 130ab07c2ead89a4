import AgentCore
import Logging
import Settings

/// The URL-scheme handler's end in the agent: when a session bus is there,
/// the agent owns `DesktopApplication.id` on it and opens the URLs that
/// launchers send (`org.freedesktop.Application.Open`). Without a bus, or
/// when another program owns the name, the agent runs as before.
public enum DesktopBus {
    /// Connects and serves on a thread of its own; returns whether the
    /// agent now owns the handler's name.
    @discardableResult
    public static func start(core: AgentCore, logger: Logger,
                             environment: [String: String] = ProcessEnvironment.current) -> Bool {
        guard let address = SessionBusAddress.find(in: environment) else {
            logger.debug("D-Bus: no session bus ($DBUS_SESSION_BUS_ADDRESS, $XDG_RUNTIME_DIR/bus): the URL-scheme handler is off")
            return false
        }
        let invokes = DesktopInvokes(core: core, logger: logger, environment: environment)
        let object = ApplicationObject { uris in invokes.open(uris) }
        guard let connection = SessionBusConnection.open(address: address, object: object, logger: logger) else { return false }
        return connection.serveOnOwnThread()
    }
}
