import CSystemd
import Logging
import Testing
import TestSupport
@testable import DesktopBus

/// The URL-scheme handler's object on a real private `dbus-daemon
/// --session`: `SessionBusConnection` owns the name and serves
/// `ApplicationObject`, and a client calls it through sd-bus as a launcher
/// does. The URIs each `Open` delivers are awaited as events.
@Suite(.ownThreads) struct ApplicationObjectThroughDBusTests {
    static let name = DesktopApplication.id
    static let path = DesktopApplication.objectPath

    /// A bus with the handler serving on it; `opened` yields each `Open`'s URIs.
    final class Served {
        let bus: PrivateBus
        let client: BusClient
        let opened: AsyncStream<[String]>

        init() throws {
            bus = try PrivateBus()
            let (opened, delivered) = AsyncStream<[String]>.makeStream()
            self.opened = opened
            let logger = Logger(label: "desktop-bus-test") { _ in SwiftLogNoOpLogHandler() }
            let connection = try #require(SessionBusConnection.open(address: bus.address,
                                                                    object: ApplicationObject { delivered.yield($0) }, logger: logger),
                                          "the handler connects and owns its name on a fresh bus")
            try #require(connection.serveOnOwnThread())
            client = try BusClient(address: bus.address)
        }
    }

    @Test("Open: the launcher gets an empty reply and the agent gets the URIs, in order")
    func openDeliversTheURIs() async throws {
        let served = try Served()
        var opened = served.opened.makeAsyncIterator()
        let answer = try served.client.open(["io.github.passkey-agent:/bind?token=abc", "https://example.org/bi-authenticate?request=x"],
                                            on: Self.name, path: Self.path)
        #expect(answer.error == nil && answer.signature == "", "\(answer)")
        #expect(await opened.next() == ["io.github.passkey-agent:/bind?token=abc", "https://example.org/bi-authenticate?request=x"])
        _ = try served.client.open(["second"], on: Self.name, path: Self.path)
        #expect(await opened.next() == ["second"])
    }

    @Test("Open with more URIs than one launch sends, or with the wrong arguments: InvalidArgs, and nothing is opened")
    func badOpensAreRefused() async throws {
        let served = try Served()
        var opened = served.opened.makeAsyncIterator()
        let tooMany = try served.client.open((0...DesktopApplication.maxURIsPerOpen).map { "uri-\($0)" }, on: Self.name, path: Self.path)
        #expect(tooMany.error == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(tooMany.message?.contains("at most \(DesktopApplication.maxURIsPerOpen) URIs") == true)
        let exactlyTheMost = try served.client.open((1...DesktopApplication.maxURIsPerOpen).map { "ok-\($0)" }, on: Self.name, path: Self.path)
        #expect(exactlyTheMost.error == nil)
        let wrongSignature = try served.client.call(Self.name, Self.path, "org.freedesktop.Application", "Open") { message in
            "just-a-string".withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
        }
        #expect(wrongSignature.error == "org.freedesktop.DBus.Error.InvalidArgs")
        let empty = try served.client.open([], on: Self.name, path: Self.path)
        #expect(empty.error == nil, "an empty Open is answered")
        _ = try served.client.open(["last"], on: Self.name, path: Self.path)
        // Opens are delivered in order on the bus thread: had a refused one, or
        // the empty one, been delivered, it would come before these.
        #expect(await opened.next() == (1...DesktopApplication.maxURIsPerOpen).map { "ok-\($0)" })
        #expect(await opened.next() == ["last"])
    }

    @Test("Activate and ActivateAction are answered (no window, no actions); Introspect describes the object; other members are unknown")
    func theRestOfTheInterface() throws {
        let served = try Served()
        let client = served.client
        let activate = try client.call(Self.name, Self.path, "org.freedesktop.Application", "Activate") { message in
            let opened = sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}")
            return opened < 0 ? opened : sd_bus_message_close_container(message)
        }
        #expect(activate.error == nil && activate.signature == "")
        let introspection = try client.call(Self.name, Self.path, "org.freedesktop.DBus.Introspectable", "Introspect")
        #expect(introspection.string == DesktopApplication.introspection)
        #expect(introspection.string?.contains(#"<method name="Open"><arg type="as" name="uris" direction="in"/>"#) == true)
        let unknown = try client.call(Self.name, Self.path, "org.freedesktop.Application", "Quit")
        #expect(unknown.error == "org.freedesktop.DBus.Error.UnknownMethod")
        let peer = try client.call(Self.name, Self.path, "org.freedesktop.DBus.Peer", "Ping")
        #expect(peer.error == nil, "sd-bus answers Peer itself")
    }

    @Test("the name is taken only if free: a second handler on the same bus does not take it from the first")
    func theNameIsNotTakenAway() throws {
        let served = try Served()
        let first = try #require(try served.client.owner(of: Self.name))
        let logger = Logger(label: "desktop-bus-test") { _ in SwiftLogNoOpLogHandler() }
        let second = SessionBusConnection.open(address: served.bus.address, object: ApplicationObject { _ in }, logger: logger)
        #expect(second == nil)
        #expect(try served.client.owner(of: Self.name) == first)
    }

    @Test("a bus address nobody listens at: no connection, and the agent goes on without the handler")
    func noBusAtTheAddress() throws {
        let bus = try PrivateBus()
        let logger = Logger(label: "desktop-bus-test") { _ in SwiftLogNoOpLogHandler() }
        #expect(SessionBusConnection.open(address: "unix:path=\(bus.directory)/nobody-here", object: ApplicationObject { _ in },
                                          logger: logger) == nil)
        #expect(SessionBusConnection.open(address: "not an address", object: ApplicationObject { _ in }, logger: logger) == nil)
    }
}
