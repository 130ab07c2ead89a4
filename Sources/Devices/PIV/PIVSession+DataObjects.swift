import ISO7816
import PIVWire

extension PIVSession {
    /// The contents of a data object (inside its `53` wrapper), or nil when the card does not have it.
    public func readObject(_ object: PIVObjectID) throws(PIVError) -> [UInt8]? {
        let request = BERTLV(tag: PIVTag.tagList, value: object.bytes).encoded
        let response = try withTransaction { session throws(PIVError) in
            try session.send(CommandAPDU(ins: PIVInstruction.getData, p1: 0x3F, p2: 0xFF, data: request,
                                         expectedLength: 256))
        }
        switch response.status {
        case .success: break
        case .fileNotFound, .referencedDataNotFound: return nil
        case .securityStatusNotSatisfied: throw .pinRequiredToRead(object)
        default: throw .cardRejected(operation: "reading object \(object)", status: response.status)
        }
        do {
            let (outer, used) = try BERTLV.parseFirst(response.data)
            guard used == response.data.count else {
                throw PIVError.malformedResponse(operation: "reading object \(object)",
                                                 reason: "\(response.data.count - used) bytes after the object")
            }
            // The discovery object comes back as itself (7E …); all others inside 53.
            if object == .discovery { return outer.tag == TLVTag(PIVObjectTag.discovery) ? outer.value : nil }
            guard outer.tag == PIVTag.data else {
                throw PIVError.malformedResponse(operation: "reading object \(object)", reason: "no 53 wrapper")
            }
            return outer.value
        } catch let error as PIVError {
            throw error
        } catch {
            throw .malformedResponse(operation: "reading object \(object)", reason: "\(error)")
        }
    }

    /// Writes a data object (needs management-key authentication). Long
    /// objects go out as a command chain.
    public func writeObject(_ object: PIVObjectID, value: [UInt8]) throws(PIVError) {
        let data = BERTLV(tag: PIVTag.tagList, value: object.bytes).encoded + BERTLV(tag: PIVTag.data, value: value).encoded
        _ = try perform(CommandAPDU(ins: PIVInstruction.putData, p1: 0x3F, p2: 0xFF, data: data),
                        operation: "writing object \(object)",
                        failure: { status in
                            status == .securityStatusNotSatisfied
                                ? .managementKeyRequired(operation: "writing object \(object)") : nil
                        })
    }

    /// The GUID of the Card Holder Unique Identifier (tag 34), if the card has a CHUID.
    public func chuidGUID() throws(PIVError) -> [UInt8]? {
        guard let chuid = try readObject(.cardholderUniqueIdentifier) else { return nil }
        return (try? BERTLV.parseAll(chuid))?.first(0x34)?.value
    }
}
