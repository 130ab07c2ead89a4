import ISO7816

extension CardChannel {
    /// Sends `command` and returns the whole response.
    ///
    /// - Command chaining: data longer than one short APDU goes out in blocks
    ///   with CLA bit 0x10 on all but the last; each block must be answered
    ///   9000, otherwise that answer is returned.
    /// - Response chaining: `61xx` is followed by GET RESPONSE until the card
    ///   has sent everything; `6Cxx` resends the command with the Le the card asked for.
    ///
    /// The returned status word is the card's last one; interpreting it is the
    /// caller's job.
    public func transmit(_ command: CommandAPDU, options: TransmitOptions = TransmitOptions()) throws(SmartCardError) -> ResponseAPDU {
        let last: CommandAPDU
        if command.needsExtendedLength && options.useExtendedLength {
            last = command
        } else {
            // Everything but the final block goes out as chained blocks.
            var remaining = command.data[...]
            while remaining.count > CommandAPDU.maximumShortData {
                let block = Array(remaining.prefix(options.chainingBlockSize))
                remaining = remaining.dropFirst(block.count)
                let chained = CommandAPDU(cla: command.cla | APDUClass.chainingBit, ins: command.ins,
                                          p1: command.p1, p2: command.p2, data: block)
                let answer = try exchange(chained, extended: false)
                guard answer.status.isSuccess else { return answer }
            }
            last = CommandAPDU(cla: command.cla, ins: command.ins, p1: command.p1, p2: command.p2,
                               data: Array(remaining),
                               expectedLength: command.expectedLength.map { min($0, CommandAPDU.maximumShortExpectedLength) })
        }

        // `encoded()` picks the extended form by itself when `last` needs it.
        var response = try exchange(last, extended: false)
        if let exact = response.status.exactExpectedLength {
            var again = last
            again.expectedLength = exact
            response = try exchange(again, extended: false)
        }
        return try collectRemainingResponse(response, options: options)
    }

    /// Follows `61xx` with GET RESPONSE, appending each part.
    private func collectRemainingResponse(_ first: ResponseAPDU, options: TransmitOptions) throws(SmartCardError) -> ResponseAPDU {
        var data = first.data
        var status = first.status
        while let available = status.moreDataAvailable {
            var next = try exchange(.getResponse(length: available), extended: false)
            if let exact = next.status.exactExpectedLength {
                next = try exchange(.getResponse(length: exact), extended: false)
            }
            data += next.data
            status = next.status
            guard data.count <= options.maximumResponseLength else {
                throw SmartCardError.malformedResponse(
                    "response chaining exceeded \(options.maximumResponseLength) bytes")
            }
            // A card that answers 61xx with no data would loop for ever.
            if next.data.isEmpty && status.moreDataAvailable != nil {
                throw SmartCardError.malformedResponse("GET RESPONSE returned no data but more was announced")
            }
        }
        return ResponseAPDU(data: data, status: status)
    }

    /// One command, one response, with no chaining.
    private func exchange(_ command: CommandAPDU, extended: Bool) throws(SmartCardError) -> ResponseAPDU {
        let bytes: [UInt8]
        do {
            bytes = try command.encoded(extended: extended)
        } catch {
            throw SmartCardError.invalidCommand(error.description)
        }
        let raw = try transmitRaw(bytes)
        // Every response APDU ends in its status word, so an answer of nothing
        // is no answer from a card at all: pcsc-lite reports success with 0
        // bytes when the card goes while the reader waits for it (vpcd when
        // the card's process dies mid-command). That is the card leaving, not
        // a card misbehaving; a single byte is still malformed.
        if raw.isEmpty { throw SmartCardError.cardRemoved(reader: readerName) }
        do {
            return try ResponseAPDU(parsing: raw)
        } catch {
            throw SmartCardError.malformedResponse(error.description)
        }
    }
}
