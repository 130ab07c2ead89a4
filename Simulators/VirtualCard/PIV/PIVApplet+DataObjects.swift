import ISO7816
import PIVWire

extension PIVApplet {
    /// The largest object PUT DATA accepts (a YubiKey 5 takes about 3 KB; this leaves room for test data).
    static let maximumObjectLength = 8 * 1024

    /// GET DATA (`00 CB 3F FF`, data `5C L tag`) → `53 L value`, or the discovery object whole.
    func getData(_ command: CommandAPDU) throws(StatusError) -> ResponseAPDU {
        guard command.p1 == 0x3F, command.p2 == 0xFF else { throw StatusError(.incorrectP1P2) }
        let tag = try objectTag(in: command.data, allowTrailing: false)
        if tag == PIVObjectTag.discovery {
            return ResponseAPDU(data: PIVStandardObjects.discovery, status: .success)
        }
        if PIVCardConstants.pinProtectedObjects.contains(tag) && !pinVerified {
            throw StatusError(.securityStatusNotSatisfied)
        }
        guard let value = state.object(tag) else { throw StatusError(.fileNotFound) }
        return ResponseAPDU(data: BERTLV(tag: PIVTag.data, value: value).encoded, status: .success)
    }

    /// PUT DATA (`00 DB 3F FF`, data `5C L tag 53 L value`); an empty value deletes the object.
    func putData(_ command: CommandAPDU) throws(StatusError) -> ResponseAPDU {
        guard command.p1 == 0x3F, command.p2 == 0xFF else { throw StatusError(.incorrectP1P2) }
        guard managementKeyAuthenticated else { throw StatusError(.securityStatusNotSatisfied) }
        let objects: [BERTLV]
        do {
            objects = try BERTLV.parseAll(command.data)
        } catch {
            throw StatusError(.incorrectData)
        }
        guard objects.count == 2, objects[1].tag == PIVTag.data else { throw StatusError(.incorrectData) }
        let tag = try objectTag(in: objects[0].encoded, allowTrailing: false)
        guard tag != PIVObjectTag.discovery else { throw StatusError(.incorrectData) }
        let value = objects[1].value
        guard value.count <= Self.maximumObjectLength else { throw StatusError(.notEnoughMemory) }
        state.setObject(tag, value.isEmpty ? nil : value)
        try persist()
        logger.info("stored data object", metadata: ["object": "\(TLVTag(tag))", "bytes": "\(value.count)"])
        return .success
    }

    /// Reads the `5C` tag list naming one object (1–3 bytes).
    private func objectTag(in data: [UInt8], allowTrailing: Bool) throws(StatusError) -> UInt32 {
        guard let (list, used) = try? BERTLV.parseFirst(data),
              list.tag == PIVTag.tagList,
              allowTrailing || used == data.count,
              (1...3).contains(list.value.count)
        else { throw StatusError(.incorrectData) }
        return list.value.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
