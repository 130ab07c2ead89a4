// sd-bus, libsystemd's D-Bus client: the agent owns its URL-scheme handler's
// name on the session bus with it (Sources/Agent/DesktopBus).
#include <systemd/sd-bus.h>
