import CCBOR

/// Bounds on what the decoder accepts. Input from a device or a network peer
/// is hostile until proven otherwise: these keep memory and recursion finite.
public struct CBORDecodingLimits: Sendable {
    public var maxBytes: Int
    public var maxDepth: Int
    public var maxItems: Int
    /// Also require CTAP2 canonical form (shortest heads, sorted map keys).
    public var requireCanonical: Bool

    public init(maxBytes: Int = 1 << 20, maxDepth: Int = 16, maxItems: Int = 65_536,
                requireCanonical: Bool = false) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.requireCanonical = requireCanonical
    }

    public static let `default` = CBORDecodingLimits()
}

extension CBOR {
    /// Decodes exactly one item that spans all of `bytes`.
    public static func decode(_ bytes: [UInt8],
                              limits: CBORDecodingLimits = .default) throws(CBORError) -> CBOR {
        let (item, used) = try decodeFirst(bytes, limits: limits)
        if used != bytes.count { throw .trailingBytes(bytes.count - used) }
        return item
    }

    /// Decodes the first item of `bytes` and says how many bytes it used.
    /// Authenticator data needs this: a COSE key is followed by more data.
    public static func decodeFirst<Bytes: RandomAccessCollection>(
        _ bytes: Bytes, limits: CBORDecodingLimits = .default
    ) throws(CBORError) -> (item: CBOR, bytesUsed: Int) where Bytes.Element == UInt8 {
        if bytes.count > limits.maxBytes { throw .tooLarge(limit: limits.maxBytes) }
        let contiguous = Array(bytes)
        let context = DecodeContext(limits: limits)
        let unmanaged = Unmanaged.passRetained(context)
        defer { unmanaged.release() }
        var offset = 0
        let callbacks = DecodeContext.callbacks
        try contiguous.withUnsafeBufferPointer { (buffer) throws(CBORError) in
            guard let base = buffer.baseAddress else { throw .truncated }
            context.bytesLeft = buffer.count
            while context.result == nil {
                if offset >= buffer.count { throw .truncated }
                let status = withUnsafePointer(to: callbacks) { callbacksPointer in
                    cbor_stream_decode(base + offset, buffer.count - offset,
                                       callbacksPointer, unmanaged.toOpaque())
                }
                if let error = context.error { throw error }
                switch status.status {
                case CBOR_DECODER_FINISHED: offset += status.read
                case CBOR_DECODER_NEDATA: throw .truncated
                default: throw .malformed
                }
                context.bytesLeft = buffer.count - offset
            }
        }
        guard let item = context.result else { throw .truncated }
        if limits.requireCanonical, item.encoded()[...] != contiguous[0..<offset] {
            throw .nonCanonical
        }
        return (item, offset)
    }
}

/// Builds `CBOR` values from libcbor's streaming decoder, one head at a time,
/// so depth and item count are checked before anything is allocated.
private final class DecodeContext {
    private enum Frame {
        case array(remaining: Int, items: [CBOR])
        case map(remaining: Int, key: CBOR?, entries: [CBOR: CBOR])
    }

    let limits: CBORDecodingLimits
    var result: CBOR?
    var error: CBORError?
    var bytesLeft = Int.max
    private var stack: [Frame] = []
    private var items = 0

    init(limits: CBORDecodingLimits) { self.limits = limits }

    private func fail(_ e: CBORError) { if error == nil { error = e } }

    /// Counts one item and checks the budget.
    private func count() -> Bool {
        items += 1
        if items > limits.maxItems { fail(.tooManyItems(limit: limits.maxItems)); return false }
        return true
    }

    /// A finished item: becomes the result or goes into its container.
    func emit(_ value: CBOR) {
        guard error == nil else { return }
        var value = value
        while true {
            guard let top = stack.popLast() else { result = value; return }
            switch top {
            case .array(let remaining, var items):
                items.append(value)
                if remaining > 1 {
                    stack.append(.array(remaining: remaining - 1, items: items)); return
                }
                value = .array(items)
            case .map(let remaining, let key, var entries):
                guard let key else {
                    stack.append(.map(remaining: remaining, key: value, entries: entries)); return
                }
                if entries.updateValue(value, forKey: key) != nil { fail(.duplicateMapKey); return }
                if remaining > 1 {
                    stack.append(.map(remaining: remaining - 1, key: nil, entries: entries)); return
                }
                value = .map(entries)
            }
        }
    }

    func scalar(_ value: CBOR) {
        guard error == nil, count() else { return }
        emit(value)
    }

    /// libcbor hands lengths over as `size_t`, which Swift sees as `Int`: a
    /// length of 2^63 or more arrives negative. libcbor already refuses a
    /// length longer than its input; this keeps that promise checked here.
    private func stringLengthFits(_ length: Int) -> Bool {
        if length < 0 || length > bytesLeft { fail(.truncated); return false }
        return true
    }

    func bytes(_ pointer: UnsafePointer<UInt8>?, _ length: Int) {
        guard error == nil, stringLengthFits(length), count() else { return }
        emit(.bytes(Array(UnsafeBufferPointer(start: pointer, count: length))))
    }

    func text(_ pointer: UnsafePointer<UInt8>?, _ length: Int) {
        guard error == nil, stringLengthFits(length), count() else { return }
        let bytes = UnsafeBufferPointer(start: pointer, count: length)
        guard let string = String(validating: bytes, as: UTF8.self) else {
            fail(.invalidUTF8); return
        }
        emit(.text(string))
    }

    func startContainer(isMap: Bool, size: Int) {
        guard error == nil, count() else { return }
        if stack.count + 1 > limits.maxDepth { fail(.tooDeep(limit: limits.maxDepth)); return }
        // libcbor hands counts over as `size_t`, which Swift sees as `Int`: a
        // count of 2^63 or more arrives negative, and is a lie like any count
        // larger than the input.
        guard size >= 0 else { fail(.truncated); return }
        // Every element needs at least one byte: a larger count is a lie.
        let (elements, overflow) = isMap ? size.multipliedReportingOverflow(by: 2) : (size, false)
        if overflow || elements > bytesLeft { fail(.truncated); return }
        if items + elements > limits.maxItems {
            fail(.tooManyItems(limit: limits.maxItems)); return
        }
        if size == 0 { emit(isMap ? .map([:]) : .array([])); return }
        if isMap {
            stack.append(.map(remaining: size, key: nil, entries: Dictionary(minimumCapacity: size)))
        } else {
            var items: [CBOR] = []
            items.reserveCapacity(size)
            stack.append(.array(remaining: size, items: items))
        }
    }

    func unsupported(_ what: String) { fail(.unsupported(what)) }

    static func from(_ raw: UnsafeMutableRawPointer?) -> DecodeContext {
        Unmanaged<DecodeContext>.fromOpaque(raw!).takeUnretainedValue()
    }

    /// libcbor calls exactly one of these per `cbor_stream_decode` call.
    /// (libcbor 0.8's header comments swap the definite/indefinite labels;
    /// the field names are what count.)
    static let callbacks: cbor_callbacks = {
        var c = cbor_callbacks()
        c.uint8 = { ctx, v in from(ctx).scalar(.unsigned(UInt64(v))) }
        c.uint16 = { ctx, v in from(ctx).scalar(.unsigned(UInt64(v))) }
        c.uint32 = { ctx, v in from(ctx).scalar(.unsigned(UInt64(v))) }
        c.uint64 = { ctx, v in from(ctx).scalar(.unsigned(v)) }
        c.negint8 = { ctx, v in from(ctx).scalar(.negative(UInt64(v))) }
        c.negint16 = { ctx, v in from(ctx).scalar(.negative(UInt64(v))) }
        c.negint32 = { ctx, v in from(ctx).scalar(.negative(UInt64(v))) }
        c.negint64 = { ctx, v in from(ctx).scalar(.negative(v)) }
        c.byte_string = { ctx, p, n in from(ctx).bytes(p, n) }
        c.string = { ctx, p, n in from(ctx).text(p, n) }
        c.array_start = { ctx, n in from(ctx).startContainer(isMap: false, size: n) }
        c.map_start = { ctx, n in from(ctx).startContainer(isMap: true, size: n) }
        c.boolean = { ctx, v in from(ctx).scalar(.bool(v)) }
        c.null = { ctx in from(ctx).scalar(.null) }
        c.byte_string_start = { ctx in from(ctx).unsupported("indefinite-length byte string") }
        c.string_start = { ctx in from(ctx).unsupported("indefinite-length text string") }
        c.indef_array_start = { ctx in from(ctx).unsupported("indefinite-length array") }
        c.indef_map_start = { ctx in from(ctx).unsupported("indefinite-length map") }
        c.indef_break = { ctx in from(ctx).unsupported("break code") }
        c.tag = { ctx, _ in from(ctx).unsupported("tag") }
        c.float2 = { ctx, _ in from(ctx).unsupported("floating-point number") }
        c.float4 = { ctx, _ in from(ctx).unsupported("floating-point number") }
        c.float8 = { ctx, _ in from(ctx).unsupported("floating-point number") }
        c.undefined = { ctx in from(ctx).unsupported("undefined value") }
        return c
    }()
}
