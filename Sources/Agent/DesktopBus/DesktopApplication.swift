import AgentProtocol

/// The URL-scheme handler as the desktop sees it: a D-Bus-activatable
/// application (freedesktop Desktop Entry spec, "D-Bus Activation"). A
/// launcher (`gio open`, a browser through GIO) calls
/// `org.freedesktop.Application.Open` on `DesktopApplicationID.objectPath`
/// with the URL in the message, so the URL is never on any command line,
/// where every local user could read it.
enum DesktopApplication {
    static let id = DesktopApplicationID.id
    static let objectPath = DesktopApplicationID.objectPath
    static let applicationInterface = "org.freedesktop.Application"
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"

    /// At most this many URIs in one `Open`: a launcher sends one per link.
    static let maxURIsPerOpen = 8

    /// What `Introspect` answers (sd-bus answers `Peer` itself).
    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
         <interface name="org.freedesktop.Application">
          <method name="Activate"><arg type="a{sv}" name="platform_data" direction="in"/></method>
          <method name="Open"><arg type="as" name="uris" direction="in"/><arg type="a{sv}" name="platform_data" direction="in"/></method>
          <method name="ActivateAction"><arg type="s" name="action_name" direction="in"/><arg type="av" name="parameter" direction="in"/><arg type="a{sv}" name="platform_data" direction="in"/></method>
         </interface>
         <interface name="org.freedesktop.DBus.Introspectable">
          <method name="Introspect"><arg type="s" name="xml_data" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.DBus.Peer">
          <method name="Ping"/>
          <method name="GetMachineId"><arg type="s" name="machine_uuid" direction="out"/></method>
         </interface>
        </node>

        """
}
