import Locking

/// Swift objects reachable from libfido2's `open(path)` callback, by the path
/// libfido2 is given.
///
/// The callback is a C function: it can only find the Swift object through a
/// table. Each registry hands out paths `<prefix>N`; prefixes must never start
/// with `nfc:` (Debian's libfido2 would route those to kernel NFC) nor `pcsc:`
/// (libfido2 builds with PC/SC claim `pcsc://`).
final class HandleRegistry<Value: Sendable>: Sendable {
    private let pathPrefix: String
    private let table = Locked<(next: Int, values: [String: Value])>((0, [:]))

    init(pathPrefix: String) {
        self.pathPrefix = pathPrefix
    }

    func register(_ value: Value) -> String {
        table.withLock { state in
            state.next += 1
            let path = "\(pathPrefix)\(state.next)"
            state.values[path] = value
            return path
        }
    }

    func unregister(_ path: String) {
        _ = table.withLock { $0.values.removeValue(forKey: path) }
    }

    func value(at path: String) -> Value? {
        table.withLock { $0.values[path] }
    }
}
