/// The name under which the agent's URL-scheme handler is known to the
/// desktop: the D-Bus-activatable application id that names the .desktop
/// file (`<id>.desktop`), the D-Bus service file (`<id>.service`) and the
/// well-known name the agent owns on the session bus. `passkey
/// install-handler` writes the files; the agent (DesktopBus) owns the name.
public enum DesktopApplicationID {
    /// Reverse DNS of the project's home (github.com/passkey-agent); `-` is
    /// not allowed in a D-Bus-activatable application id's segments, hence `_`.
    public static let id = "io.github.passkey_agent.Invoke"
    /// The id with `.` as `/`: where GIO sends `Open` for this id.
    public static let objectPath = "/io/github/passkey_agent/Invoke"
    public static let desktopFileName = id + ".desktop"
    public static let serviceFileName = id + ".service"
}
