import ISO7816
import Logging

/// A smart card in software: an ATR, a set of applets, and the ISO 7816-4
/// plumbing between the reader and them (SELECT by AID, command chaining,
/// response chaining, reset).
///
/// Not thread-safe: one reader connection drives it from one thread.
public final class VirtualCard {
    /// The most bytes a command chain may accumulate (a PIV certificate object is far below it).
    public static let maximumChainedDataLength = 64 * 1024
    /// The most data bytes in one response APDU: pcsc clients read into 258-byte buffers.
    static let maximumResponsePart = 256

    public let atr: [UInt8]
    private let applets: [any Applet]
    private var selected: (any Applet)?
    private var logger: Logger

    /// A command chain being assembled: the header it started with, and the data so far.
    private var pendingChain: (ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8])?
    /// Response bytes still waiting for GET RESPONSE, and the status word that ends them.
    private var pendingResponse: (data: [UInt8], status: StatusWord)?

    public init(atr: [UInt8] = AnswerToReset.default, applets: [any Applet], logger: Logger) {
        self.atr = atr
        self.applets = applets
        self.logger = logger
    }

    /// Power-on, power-off and reset all return the card to its initial volatile state.
    public func reset() {
        selected = nil
        pendingChain = nil
        pendingResponse = nil
        for applet in applets { applet.reset() }
    }

    /// Handles one command APDU as received from the reader; returns the response APDU bytes.
    public func process(apdu bytes: [UInt8]) -> [UInt8] {
        let command: CommandAPDU
        do {
            command = try CommandAPDU(parsing: bytes)
        } catch {
            logger.debug("malformed command APDU: \(error)")
            return ResponseAPDU(status: .wrongLength).encoded
        }
        let response = process(command)
        logger.debug("\(command) -> \(response)")
        return response.encoded
    }

    /// Handles one parsed command (the in-process entry point tests use).
    public func process(_ command: CommandAPDU) -> ResponseAPDU {
        // GET RESPONSE continues a long answer; anything else abandons it.
        if command.ins == APDUInstruction.getResponse && command.cla & APDUClass.chainingBit == 0 {
            return continueResponse(expectedLength: command.expectedLength)
        }
        pendingResponse = nil

        guard let complete = assembleChain(command) else { return .success }
        if case .failure(let error) = complete { return .status(error.status) }
        guard case .success(let whole) = complete else { return .status(.noPreciseDiagnosis) }

        let full: ResponseAPDU
        if whole.ins == APDUInstruction.select && whole.p1 == 0x04 {
            full = select(whole)
        } else if let applet = selected {
            full = applet.process(whole)
        } else {
            full = .status(.instructionNotSupported)
        }
        return firstPart(of: full, expectedLength: whole.expectedLength)
    }

    // MARK: Command chaining (ISO/IEC 7816-4 §5.4.1)

    /// Returns nil while a chain is still being assembled (answer 9000), the
    /// complete command when the last block arrives, or a status to fail with.
    private func assembleChain(_ command: CommandAPDU) -> Result<CommandAPDU, StatusError>? {
        if command.isChainedBlock {
            var data: [UInt8] = []
            if let chain = pendingChain, chain.ins == command.ins, chain.p1 == command.p1, chain.p2 == command.p2 {
                data = chain.data
            }
            data += command.data
            guard data.count <= Self.maximumChainedDataLength else {
                pendingChain = nil
                return .failure(StatusError(.notEnoughMemory))
            }
            pendingChain = (command.ins, command.p1, command.p2, data)
            return nil
        }
        defer { pendingChain = nil }
        guard let chain = pendingChain, chain.ins == command.ins, chain.p1 == command.p1, chain.p2 == command.p2 else {
            return .success(command)
        }
        var whole = command
        whole.data = chain.data + command.data
        guard whole.data.count <= Self.maximumChainedDataLength else { return .failure(StatusError(.notEnoughMemory)) }
        return .success(whole)
    }

    // MARK: SELECT by DF name

    private func select(_ command: CommandAPDU) -> ResponseAPDU {
        let prefix = command.data
        guard prefix.count >= 5,
              let applet = applets.first(where: { $0.applicationIdentifier.starts(with: prefix) })
        else {
            return .status(.fileNotFound)
        }
        let response = applet.select()
        if response.status.isSuccess {
            if let previous = selected, previous !== applet { previous.reset() }
            selected = applet
            logger.debug("selected applet \(applet.name)")
        }
        return response
    }

    // MARK: Response chaining (61xx + GET RESPONSE)

    private func firstPart(of response: ResponseAPDU, expectedLength: Int?) -> ResponseAPDU {
        let limit = min(expectedLength ?? Self.maximumResponsePart, Self.maximumResponsePart)
        guard response.data.count > limit else { return response }
        let rest = Array(response.data[limit...])
        pendingResponse = (rest, response.status)
        return ResponseAPDU(data: Array(response.data[..<limit]), status: .moreData(rest.count))
    }

    private func continueResponse(expectedLength: Int?) -> ResponseAPDU {
        guard let pending = pendingResponse else { return .status(.conditionsOfUseNotSatisfied) }
        let limit = min(expectedLength ?? Self.maximumResponsePart, Self.maximumResponsePart)
        if pending.data.count <= limit {
            pendingResponse = nil
            return ResponseAPDU(data: pending.data, status: pending.status)
        }
        let rest = Array(pending.data[limit...])
        pendingResponse = (rest, pending.status)
        return ResponseAPDU(data: Array(pending.data[..<limit]), status: .moreData(rest.count))
    }
}

/// A status word carried as an error, so applet code can `throw` its way out
/// of a deep check and answer with the status at the top.
public struct StatusError: Error, Sendable {
    public let status: StatusWord
    public init(_ status: StatusWord) { self.status = status }
}
