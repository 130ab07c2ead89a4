import Passwordless
import Crypto
import DevServer
import FIDO
import HTTPTransport
import Interaction
import VirtualAuthenticator
import WebAuthnClient

/// Issue 3: the passwordless.dev register and sign-in ceremonies, whole, on
/// loopback — the devserver in this process, the software authenticator
/// through libfido2 — and where their time goes: in HTTP (`begin` and
/// `complete`, each including the server's work) or in the authenticator
/// (the WebAuthn client and makeCredential/getAssertion through libfido2).
/// Beside them, in the same run, the floors: the bare P-256 operations and
/// one trivial request to the same server.
struct CeremonyBenchmarks {
    var ceremonies: Int
    var warmUp: Int
    /// Iterations of the bare-crypto and HTTP floors.
    var floorIterations: Int

    private static let descriptor = DeviceDescriptor(
        path: "virtual", manufacturer: "passkey-bench", product: "software authenticator (not hardware)",
        vendorId: 0, productId: 0, isSoftware: true)

    /// The user every sign-in signs in as (the first one registered).
    private static let signInUser = "bench-user-0"

    func run() async throws(BenchError) -> GroupReport {
        var report = GroupReport(group: "ceremony",
                                 title: "ceremony (issue 3): passwordless.dev on loopback, virtual authenticator")
        let server = try await BenchError.awaiting("starting the devserver") {
            try await DevServer.start(DevServerConfiguration(rpIds: ["localhost"], origins: ["https://localhost"],
                                                             logger: DevServer.standardErrorLogger(level: .error)))
        }
        do throws(BenchError) {
            report = try await measure(server, into: report)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        return report
    }

    private func measure(_ server: RunningDevServer, into report: GroupReport) async throws(BenchError) -> GroupReport {
        var report = report
        let transport = HTTPTransport()
        let settings = try BenchError.during("the passwordless settings") {
            try PasswordlessSettings(apiURL: server.apiURL, apiKey: server.apiKey, rpId: server.rpId,
                                     origin: server.origins.first)
        }
        let origin = try BenchError.during("the origin") { try WebAuthnOrigin(settings.origin) }
        let api = PasswordlessAPI(settings: settings, transport: transport)
        let flows = PasswordlessCeremonies(api: api)
        let backend = PasswordlessBackend(apiURL: server.apiURL, apiSecret: server.apiSecret, transport: transport)
        // Opened once, as a key that stays plugged in (what opening costs is in the authenticator group).
        let hid = try BenchError.during("creating the virtual authenticator") {
            try VirtualHIDDevice(configuration: VirtualAuthenticatorConfiguration(statePath: nil))
        }
        let device = try BenchError.during("opening the virtual authenticator through libfido2") {
            try FIDODevice.open(.packetDevice(hid, Self.descriptor))
        }
        let interaction = ApprovingInteraction()
        var users = 0
        /// A register token for a new user (the backend's part, never timed). A
        /// new user each time: the key already holds a credential for every earlier one.
        /// Non-discoverable: a key has room for only so many discoverable
        /// credentials (the virtual one 100, a YubiKey 25), and a run makes hundreds.
        func registerToken() async throws(BenchError) -> String {
            defer { users += 1 }
            return try await BenchError.awaiting("POST /register/token") {
                try await backend.registerToken(.init(userId: "bench-user-\(users)", username: "bench-\(users)@example.org",
                                                     discoverable: false))
            }
        }

        // The first ceremonies, checked the way an app's backend checks them.
        let first = try await BenchError.awaiting("the first registration") {
            try await flows.register(token: try await registerToken(), nickname: nil, on: device, pin: nil, interaction: interaction)
        }
        let firstSignIn = try await BenchError.awaiting("the first sign-in") {
            try await flows.signIn(.userId(Self.signInUser), user: nil, on: device, pin: nil, interaction: interaction)
        }
        for token in [first.token, firstSignIn.token] {
            let verified = try await BenchError.awaiting("POST /signin/verify") { try await backend.verify(token: token) }
            guard verified.success, verified.userId == Self.signInUser else {
                throw .stepFailed("POST /signin/verify", reason: "the server did not confirm the ceremony for \(Self.signInUser)")
            }
        }

        // 1. The whole ceremonies, through the Ceremonies library as `passkey register`/`signin` run them.
        let warmUpCeremonies = max(1, warmUp / 4)
        var register = Samples(nanoseconds: [])
        let clock = ContinuousClock()
        for index in 0..<(warmUpCeremonies + ceremonies) {
            let token = try await registerToken()
            let start = clock.now
            _ = try await BenchError.awaiting("a registration") {
                try await flows.register(token: token, nickname: nil, on: device, pin: nil, interaction: interaction)
            }
            if index >= warmUpCeremonies { register.nanoseconds.append((clock.now - start).nanoseconds) }
        }
        let signIn = try await BenchError.awaiting("a sign-in") {
            try await Measurement.sample(warmUp: warmUpCeremonies, iterations: ceremonies) {
                _ = try await flows.signIn(.userId(Self.signInUser), user: nil, on: device, pin: nil, interaction: interaction)
            }
        }

        // 2. The same steps PasswordlessCeremonies takes, with the clock read between them.
        var registerParts = CeremonyParts()
        for index in 0..<(warmUpCeremonies + ceremonies) {
            let token = try await registerToken()
            let parts = try await BenchError.awaiting("a timed registration") { () async throws -> CeremonyParts.Split in
                let clock = ContinuousClock()
                let start = clock.now
                let begun = try await api.registerBegin(token: token)
                let begunAt = clock.now
                let response = try await CreateCredential(options: begun.data, origin: origin)
                    .run(on: device, pin: nil, interaction: interaction)
                let createdAt = clock.now
                _ = try await api.registerComplete(session: begun.session, response: response, nickname: nil)
                let end = clock.now
                return .init(begin: (begunAt - start).nanoseconds, authenticator: (createdAt - begunAt).nanoseconds,
                             complete: (end - createdAt).nanoseconds)
            }
            if index >= warmUpCeremonies { registerParts.append(parts) }
        }
        var signInParts = CeremonyParts()
        for index in 0..<(warmUpCeremonies + ceremonies) {
            let parts = try await BenchError.awaiting("a timed sign-in") { () async throws -> CeremonyParts.Split in
                let clock = ContinuousClock()
                let start = clock.now
                let begun = try await api.signinBegin(alias: nil, userId: Self.signInUser)
                let begunAt = clock.now
                let response = try await GetCredential(options: begun.data, origin: origin)
                    .run(on: device, pin: nil, interaction: interaction)
                let assertedAt = clock.now
                _ = try await api.signinComplete(session: begun.session, response: response)
                let end = clock.now
                return .init(begin: (begunAt - start).nanoseconds, authenticator: (assertedAt - begunAt).nanoseconds,
                             complete: (end - assertedAt).nanoseconds)
            }
            if index >= warmUpCeremonies { signInParts.append(parts) }
        }

        // 3. The floors, in the same run.
        let floors = try await floorSamples(server: server, transport: transport)

        let median = { (samples: Samples) -> Double in Double(samples.summary?.median ?? 0) }
        let registerFloor = median(floors.keyGenerationAndSignature) + median(floors.verification) + 2 * median(floors.http)
        let signInFloor = median(floors.signature) + median(floors.verification) + 2 * median(floors.http)
        report.figures = [
            .time("register.ceremony", "register: begin → makeCredential → complete", register),
            .time("signin.ceremony", "sign-in: begin → getAssertion → complete", signIn),
        ]
        report.figures += registerParts.figures(prefix: "register", label: "register", authenticator: "makeCredential")
        report.figures += signInParts.figures(prefix: "signin", label: "sign-in", authenticator: "getAssertion")
        report.figures += [
            .time("floor.keyGenerationAndSignature", "floor: P-256 key generation + signature", floors.keyGenerationAndSignature),
            .time("floor.signature", "floor: P-256 signature", floors.signature),
            .time("floor.verification", "floor: server's signature check (SHA-256 + ECDSA verify)", floors.verification),
            .time("floor.http", "floor: HTTP round trip (GET /users/count)", floors.http),
            .ratio("ratio.register", "register / its floor (crypto + 2 round trips)", median(register) / max(1, registerFloor)),
            .ratio("ratio.signin", "sign-in / its floor (crypto + 2 round trips)", median(signIn) / max(1, signInFloor)),
        ]
        report.notes = [
            "\(ceremonies) ceremonies of each kind after \(warmUpCeremonies) warm-up, each series separately; a new user per registration (register token from the secret API, not timed); every sign-in by user id for one user (allowCredentials with one credential)",
            "devserver in this process on 127.0.0.1 (Hummingbird), client HTTPTransport (AsyncHTTPClient, connections kept alive); server and client share the machine's processors",
            "virtual authenticator opened once, state in memory, user presence and built-in UV approved inline; registrations non-discoverable (a run makes more credentials than a key has discoverable slots), user verification preferred",
            "parts: begin and complete are the HTTP calls including the server's work (JSON, WebAuthn verification, its store); authenticator is the WebAuthn client (clientDataJSON, options, response JSON) plus the CTAP request through libfido2; the HTTP share is (begin + complete) / (begin + authenticator + complete), per ceremony, median",
            "floors: \(floorIterations) iterations each after \(warmUp) warm-up; a register's floor is key generation + signature + one server check + 2 HTTP round trips, a sign-in's is signature + check + 2 round trips",
        ]
        return report
    }

    private struct Floors {
        var keyGenerationAndSignature: Samples
        var signature: Samples
        var verification: Samples
        var http: Samples
    }

    private func floorSamples(server: RunningDevServer, transport: HTTPTransport) async throws(BenchError) -> Floors {
        // What an assertion signs: authenticator data (37 bytes) ‖ SHA-256(clientDataJSON).
        let clientDataJSON = Array(#"{"type":"webauthn.get","challenge":"Zm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFy","origin":"https://localhost","crossOrigin":false}"#.utf8)
        let authenticatorData = Array(SHA256.hash(data: Array("localhost".utf8))) + [0x05, 0, 0, 0, 1]
        let message = authenticatorData + Array(SHA256.hash(data: clientDataJSON))
        let key = P256.Signing.PrivateKey()
        let publicKey = key.publicKey
        let signatureBytes = try BenchError.during("P-256 signing") { try key.signature(for: message).derRepresentation }

        let keyGenerationAndSignature = try BenchError.during("P-256 key generation and signing") {
            try Measurement.sample(warmUp: warmUp, iterations: floorIterations) {
                _ = try P256.Signing.PrivateKey().signature(for: message).derRepresentation
            }
        }
        let signature = try BenchError.during("P-256 signing") {
            try Measurement.sample(warmUp: warmUp, iterations: floorIterations) {
                _ = try key.signature(for: message).derRepresentation
            }
        }
        // The server's side: hash clientDataJSON, parse the DER signature, verify.
        let verification = try BenchError.during("P-256 verification") {
            try Measurement.sample(warmUp: warmUp, iterations: floorIterations) {
                let signed = authenticatorData + Array(SHA256.hash(data: clientDataJSON))
                let parsed = try P256.Signing.ECDSASignature(derRepresentation: signatureBytes)
                guard publicKey.isValidSignature(parsed, for: signed) else {
                    throw BenchError.stepFailed("P-256 verification", reason: "a good signature did not verify")
                }
            }
        }
        // A trivial request to the same server: its key check, a count, a small JSON answer.
        let url = server.apiURL + "/users/count"
        let http = try await BenchError.awaiting("GET /users/count") {
            try await Measurement.sample(warmUp: warmUp, iterations: floorIterations) {
                let response = try await transport.send("GET", url, headers: [("ApiSecret", server.apiSecret)])
                guard response.status == 200 else {
                    throw BenchError.stepFailed("GET /users/count", reason: "HTTP \(response.status)")
                }
            }
        }
        return Floors(keyGenerationAndSignature: keyGenerationAndSignature, signature: signature,
                      verification: verification, http: http)
    }
}

/// The three parts of ceremonies timed one by one.
private struct CeremonyParts {
    struct Split: Sendable {
        var begin: Int64
        var authenticator: Int64
        var complete: Int64
    }

    var begin = Samples(nanoseconds: [])
    var authenticator = Samples(nanoseconds: [])
    var complete = Samples(nanoseconds: [])
    var total = Samples(nanoseconds: [])
    /// (begin + complete) / total, per ceremony.
    var httpShares: [Double] = []

    mutating func append(_ split: Split) {
        begin.nanoseconds.append(split.begin)
        authenticator.nanoseconds.append(split.authenticator)
        complete.nanoseconds.append(split.complete)
        let sum = split.begin + split.authenticator + split.complete
        total.nanoseconds.append(sum)
        httpShares.append(Double(split.begin + split.complete) / Double(max(1, sum)))
    }

    var medianHTTPShare: Double {
        let sorted = httpShares.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    func figures(prefix: String, label: String, authenticator operation: String) -> [Figure] {
        let path = prefix == "register" ? "/register" : "/signin"
        return [
            .time("\(prefix).split.total", "\(label), timed in parts: total", total),
            .time("\(prefix).split.begin", "  POST \(path)/begin (HTTP + server)", begin),
            .time("\(prefix).split.authenticator", "  WebAuthn client + \(operation) via libfido2", authenticator),
            .time("\(prefix).split.complete", "  POST \(path)/complete (HTTP + server)", complete),
            .share("\(prefix).share.http", "  share in HTTP (begin + complete)", medianHTTPShare),
            .share("\(prefix).share.authenticator", "  share in the authenticator", 1 - medianHTTPShare),
        ]
    }
}

/// The person at the key, as the benchmark plays them: every touch and
/// fingerprint is approved by the virtual authenticator's own policy; a PIN
/// is never needed (the key has none), and the first account is the one.
private struct ApprovingInteraction: UserInteraction {
    func progress(_ stage: ProgressStage) {}

    func pin(_ request: PINRequest) async throws -> String {
        throw BenchError.stepFailed("the ceremony", reason: "the virtual authenticator asked for a PIN, but it has none")
    }

    func chooseAccount(_ accounts: [AccountChoice]) async throws -> Int { 0 }

    func confirm(_ request: ConfirmationRequest) async throws -> Bool { true }
}
