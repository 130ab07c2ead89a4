extension CoreServices {
    /// Drops every unlocked secret (SIGHUP, `agent.lock`, idle timeout).
    /// With no vault configured there is nothing to drop.
    public func lockEverything(reason: String) {}
}
