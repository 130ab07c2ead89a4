import Crypto
import FIDO
import Harness
import ISO7816
import SmartCard

#if canImport(Glibc)
import Glibc
#endif

/// Issue 14: getAssertion over PC/SC — libfido2's transport functions,
/// libpcsclite, a private pcscd, vpcd's TCP and `passkey-vcard`'s FIDO2
/// applet — next to the same on the USB virtual device, each against its
/// signature floor. The one exchange PC/SC adds and cannot avoid is measured
/// bare: an APDU round trip through the same stack (GET RESPONSE with nothing
/// to fetch, which the card answers at once).
struct PCSCAuthenticatorBenchmarks {
    var iterations: Int
    var warmUp: Int
    var programs: Programs

    private static let rpId = "example.org"

    /// Figures and aims for the authenticator group; `signature` is the group's P-256 signing floor.
    func run(signature: Samples, into report: inout GroupReport) throws(BenchError) {
        let harness: PCSCHarness
        do throws(BenchError) {
            harness = try Self.privatePCSC(virtualCard: programs.passkeyVirtualCard)
        } catch {
            report.unavailable.append("getAssertion over PC/SC (vpcd): \(error)")
            return
        }
        defer { harness.stop() }
        let reader = harness.readerName(slot: 0)

        // 1. The bare round trip, on a connection of its own (closed before the
        //    key is opened: the key's handle holds a transaction for its life).
        let roundTrip = try BenchError.during("an APDU round trip through pcscd and vpcd") { () throws -> Samples in
            let connection = try SmartCardContext().connect(reader: reader)
            defer { connection.disconnect() }
            let nothing = try CommandAPDU.getResponse(length: 256).encoded()
            return try Measurement.sample(warmUp: warmUp, iterations: iterations) { _ = try connection.transmitRaw(nothing) }
        }

        // 2. getAssertion through libfido2 over PC/SC, opened once and per operation.
        let open = { () throws -> FIDODevice in try FIDODevice.open(.pcsc(reader: reader)) }
        let clientDataHash = Array(SHA256.hash(data: Array(#"{"type":"webauthn.get","challenge":"bench"}"#.utf8)))
        let assertion = try BenchError.during("makeCredential over PC/SC") { () throws -> GetAssertionRequest in
            let credential = try open().makeCredential(MakeCredentialRequest(
                clientDataHash: clientDataHash, rpId: Self.rpId, rpName: "Example", userId: Array("bench-user".utf8),
                userName: "bench", userDisplayName: "Bench", algorithms: [.es256]))
            return GetAssertionRequest(rpId: Self.rpId, clientDataHash: clientDataHash, allowCredentialIds: [credential.credentialId])
        }
        // The handle is released at the end of this step: while it lives, its
        // transaction makes every other connection to the card wait.
        let getAssertion = try BenchError.during("getAssertion over PC/SC") { () throws -> Samples in
            let device = try open()
            return try Measurement.sample(warmUp: warmUp, iterations: iterations) { _ = try device.getAssertion(assertion) }
        }
        let openAndGetAssertion = try BenchError.during("open + getAssertion over PC/SC") {
            try Measurement.sample(warmUp: min(warmUp, 50), iterations: max(1, iterations / 4)) {
                _ = try open().getAssertion(assertion)
            }
        }

        let median = { (samples: Samples) -> Double in Double(samples.summary?.median ?? 0) }
        let ratio = median(getAssertion) / max(1, median(signature))
        // The USB virtual device's budget (4 signatures) plus the exchange PC/SC adds.
        let budget = 4 * median(signature) + median(roundTrip)
        report.figures += [
            .time("pcsc.apduRoundTrip", "APDU round trip: libpcsclite → pcscd → vpcd → passkey-vcard", roundTrip),
            .time("getAssertion.pcsc", "getAssertion via libfido2 over PC/SC (opened once)", getAssertion),
            .time("openAndGetAssertion.pcsc", "open (connect, SELECT, GetInfo) + getAssertion over PC/SC", openAndGetAssertion),
            .ratio("ratio.getAssertion.pcsc", "getAssertion over PC/SC / signature", ratio),
            .ratio("ratio.getAssertion.pcscToRoundTrip", "getAssertion over PC/SC / APDU round trip",
                   median(getAssertion) / max(1, median(roundTrip))),
        ]
        report.aims.append(Aim(name: "getAssertion over PC/SC ≤ 4 × signature + 1 APDU round trip",
                               target: "≤ " + Report.time(Int64(budget)),
                               measured: Report.time(Int64(median(getAssertion))), met: median(getAssertion) <= budget))
        report.notes.append("PC/SC: a private pcscd with Debian's vpcd driver and passkey-vcard --applets fido2 (not --verbose); "
                            + "open + getAssertion \(max(1, iterations / 4)) iterations")
    }

    /// A private pcscd with one `passkey-vcard` (FIDO2 applet only) in its first reader,
    /// and libpcsclite in this process pointed at it.
    private static func privatePCSC(virtualCard: String) throws(BenchError) -> PCSCHarness {
        let virtualCard = try Programs.built(virtualCard)
        return try BenchError.during("starting a private pcscd with passkey-vcard") {
            let pcsc = try PCSCHarness(virtualCard: virtualCard)
            do {
                _ = try pcsc.startCard(slot: 0, verbose: false, options: ["--applets", "fido2"])
                // libpcsclite reads this once, at this process's first PC/SC call.
                setenv("PCSCLITE_CSOCK_NAME", pcsc.socketPath, 1)
                _ = try SmartCardContext().waitForCard(in: pcsc.readerName(slot: 0), timeout: .seconds(15))
            } catch {
                pcsc.stop()
                throw error
            }
            return pcsc
        }
    }
}
