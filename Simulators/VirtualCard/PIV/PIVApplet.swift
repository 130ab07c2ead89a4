import FoundationEssentials
import ISO7816
import Logging
import PIVWire

/// The PIV card application (NIST SP 800-73-4) with the Yubico extensions
/// that standard tools look for: a P-256 key in each of 9A, 9C, 9D, 9E and
/// the retired slots 82–95, PIN/PUK with retry counters, the 9B management
/// key (3DES or AES), data objects, GET VERSION, GET SERIAL, GET METADATA.
///
/// Access rules follow the YubiKey defaults: 9A, 9D and retired keys need the
/// PIN once per session, 9C needs it right before each use, 9E needs none;
/// key generation, PUT DATA and SET MANAGEMENT KEY need the management key.
/// SELECT, reset and power-off forget the PIN and management-key state.
///
/// Every change is written to the state file before the card answers, so a
/// wrong PIN costs a try even if the process dies right after.
public final class PIVApplet: Applet {
    public let name = "PIV"
    public let applicationIdentifier = PIVApplication.identifier

    var state: PIVCardState
    private let memory: CardMemory
    let logger: Logger

    // Volatile security state.
    var pinVerified = false
    /// Set by VERIFY and used up by one operation with a PIN-always key (9C).
    var pinVerifiedForAlwaysKey = false
    var managementKeyAuthenticated = false
    /// The witness the card encrypted for mutual authentication, expected back in clear.
    var pendingWitness: [UInt8]?
    /// The challenge the card sent for one-way authentication, expected back encrypted.
    var pendingChallenge: [UInt8]?

    /// Loads the card from `stateFile`, or creates a factory-new card there if the file does not exist.
    /// Without a state file the card lives in memory only.
    public convenience init(stateFile: CardStateFile?, logger: Logger) throws(VirtualCardError) {
        try self.init(memory: CardMemory(file: stateFile), logger: logger)
    }

    /// Loads the PIV part of the card's memory, or creates a factory-new PIV card there.
    public init(memory: CardMemory, logger: Logger) throws(VirtualCardError) {
        self.memory = memory
        self.logger = logger
        if let stored = memory.piv {
            guard stored.format == PIVCardState.currentFormat else {
                throw .invalidState(path: memory.file?.path ?? "(memory)",
                                    reason: "format \(stored.format) is not \(PIVCardState.currentFormat)")
            }
            state = stored
            logger.info("loaded PIV card state", metadata: ["path": "\(memory.file?.path ?? "")", "serial": "\(state.serialNumber)"])
        } else {
            state = PIVCardState.factoryNew()
            try save()
            logger.info("created a new PIV card", metadata: ["serial": "\(state.serialNumber)"])
        }
    }

    /// The card's serial number (GET SERIAL).
    public var serialNumber: UInt32 { state.serialNumber }

    public func select() -> ResponseAPDU {
        clearSecurityState()
        return ResponseAPDU(data: PIVStandardObjects.applicationPropertyTemplate, status: .success)
    }

    public func reset() {
        clearSecurityState()
    }

    func clearSecurityState() {
        pinVerified = false
        pinVerifiedForAlwaysKey = false
        managementKeyAuthenticated = false
        pendingWitness = nil
        pendingChallenge = nil
    }

    public func process(_ command: CommandAPDU) -> ResponseAPDU {
        guard command.cla == 0x00 else { return .status(.classNotSupported) }
        do {
            switch command.ins {
            case PIVInstruction.verify: return try verify(command)
            case PIVInstruction.changeReferenceData: return try changeReferenceData(command)
            case PIVInstruction.resetRetryCounter: return try resetRetryCounter(command)
            case PIVInstruction.generalAuthenticate: return try generalAuthenticate(command)
            case PIVInstruction.generateAsymmetricKeyPair: return try generateKeyPair(command)
            case PIVInstruction.getData: return try getData(command)
            case PIVInstruction.putData: return try putData(command)
            case PIVInstruction.getVersion: return ResponseAPDU(data: PIVCardConstants.version, status: .success)
            case PIVInstruction.getSerial: return getSerial()
            case PIVInstruction.getMetadata: return try getMetadata(command)
            case PIVInstruction.setManagementKey: return try setManagementKey(command)
            case PIVInstruction.reset: return try resetApplication(command)
            default: return .status(.instructionNotSupported)
            }
        } catch {
            return .status(error.status)
        }
    }

    /// Writes the state file; a failure answers 6581 (memory failure) so the
    /// client never believes a change that is not stored.
    func save() throws(VirtualCardError) {
        let state = self.state
        try memory.update { $0.piv = state }
    }

    func persist() throws(StatusError) {
        do {
            try save()
        } catch {
            logger.error("cannot save the card state: \(error)")
            throw StatusError(.memoryFailure)
        }
    }

    /// The children of the one constructed object `tag` that must make up all
    /// of `data` (the 7C template of GENERAL AUTHENTICATE, the AC template of
    /// GENERATE); anything else is 6A80.
    func templateItems(_ tag: TLVTag, in data: [UInt8]) throws(StatusError) -> [BERTLV] {
        guard let (outer, used) = try? BERTLV.parseFirst(data), outer.tag == tag, used == data.count,
              let children = try? outer.children()
        else { throw StatusError(.incorrectData) }
        return children
    }
}
