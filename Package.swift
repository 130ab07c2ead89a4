// swift-tools-version:6.1
// passkey-agent: a hardware-backed passkey and token agent for Linux.
//
// One folder of Sources/ per layer, listed here from the bottom up: System,
// Wire, Devices, Identity, Agent, Programs. A target uses only targets of
// the folders below its own and those listed before it in its own folder;
// docs/ARCHITECTURE.md is the map. What ships is in Sources/; what imitates
// its counterparts (devserver, virtual card, demo) is in Simulators/, the
// benchmark in Benchmarks/: both may use Sources, Sources uses neither.
import PackageDescription

let crypto: Target.Dependency = .product(name: "Crypto", package: "swift-crypto")
let cryptoExtras: Target.Dependency = .product(name: "CryptoExtras", package: "swift-crypto")
let x509: Target.Dependency = .product(name: "X509", package: "swift-certificates")
let asn1: Target.Dependency = .product(name: "SwiftASN1", package: "swift-asn1")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")
let nio: Target.Dependency = .product(name: "NIOCore", package: "swift-nio")
let nioPosix: Target.Dependency = .product(name: "NIOPosix", package: "swift-nio")
let httpClient: Target.Dependency = .product(name: "AsyncHTTPClient", package: "async-http-client")
let hummingbird: Target.Dependency = .product(name: "Hummingbird", package: "hummingbird")
let nioHTTP1: Target.Dependency = .product(name: "NIOHTTP1", package: "swift-nio")
let jwtKit: Target.Dependency = .product(name: "JWTKit", package: "jwt-kit")
// Hummingbird's vocabulary (HTTPRequest, HTTPResponse.Status) and its service group: the devserver imports both itself.
let httpTypes: Target.Dependency = .product(name: "HTTPTypes", package: "swift-http-types")
let serviceLifecycle: Target.Dependency = .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")

/// Set by scripts/fuzz, which builds only `passkey-fuzz`, in its own scratch
/// path (.build-fuzz), so the normal build never sees these flags.
let fuzzing = Context.environment["PASSKEY_FUZZ"] == "1"

let package = Package(
    name: "passkey-agent",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.30.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.20.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        // Hummingbird's own dependencies, named because the devserver's targets import them; no default traits, as Hummingbird asks.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // MARK: Sources/System — Debian's C libraries, and the one stderr writer.
        .systemLibrary(name: "CFIDO2", path: "Sources/System/CFIDO2", pkgConfig: "libfido2",
                       providers: [.apt(["libfido2-dev", "libssl-dev"])]),
        .systemLibrary(name: "CPCSC", path: "Sources/System/CPCSC", pkgConfig: "libpcsclite",
                       providers: [.apt(["libpcsclite-dev"])]),
        .systemLibrary(name: "CCBOR", path: "Sources/System/CCBOR", pkgConfig: "libcbor",
                       providers: [.apt(["libcbor-dev"])]),
        // The Public Suffix List (Debian's libpsl, built-in list plus the system's newer one): registrable domains.
        .systemLibrary(name: "CPSL", path: "Sources/System/CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),
        .systemLibrary(name: "CMalloc", path: "Sources/System/CMalloc"),  // glibc's malloc_trim: the agent hands freed memory back
        .systemLibrary(name: "CSpawn", path: "Sources/System/CSpawn"),  // glibc's posix_spawn closefrom: a child inherits no descriptor of ours
        .systemLibrary(name: "CLibCrypto", path: "Sources/System/CLibCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // sd-bus: the agent's URL-scheme handler on the session bus (Sources/Agent/DesktopBus).
        .systemLibrary(name: "CSystemd", path: "Sources/System/CSystemd", pkgConfig: "libsystemd",
                       providers: [.apt(["libsystemd-dev"])]),
        // Not a C library but the layer's Swift face of glibc's write(2): the one stderr writer, for every program.
        .target(name: "StandardError", path: "Sources/System/StandardError"),
        // The one lock for shared state: a pthread mutex, which ThreadSanitizer sees (Synchronization.Mutex's futex it does not).
        .target(name: "Locking", path: "Sources/System/Locking"),
        // The release and the git commit a program was built from (`--version`); the commit is
        // written at build time by the BuildCommit plugin (Plugins/BuildCommit).
        .target(name: "BuildInfo", path: "Sources/System/BuildInfo", plugins: ["BuildCommit"]),

        // MARK: Sources/Wire — encodings, the WebAuthn model, what an operation asks the user,
        // files on disk: pure data, no device, no network.
        .target(name: "CBOR", dependencies: ["CCBOR"], path: "Sources/Wire/CBOR"),
        .target(name: "Hexadecimal", path: "Sources/Wire/Hexadecimal"),  // bytes as hex text, and back: the one implementation
        .target(name: "ISO7816", dependencies: ["Hexadecimal"], path: "Sources/Wire/ISO7816"),
        .target(name: "PIVWire", dependencies: ["ISO7816", "CLibCrypto", crypto, cryptoExtras], path: "Sources/Wire/PIVWire"),
        .target(name: "SecureFiles", path: "Sources/Wire/SecureFiles"),
        // Any JSON value, held before it is decoded into a type of its own, and the limits outside JSON is measured against first.
        .target(name: "BoundedJSON", path: "Sources/Wire/BoundedJSON"),
        // What libraries report in the form the socket protocol answers with (cards, passwordless.dev ceremonies, IDX messages):
        // one model below both, no dependencies.
        .target(name: "Reports", path: "Sources/Wire/Reports"),
        // One line naming the JSON member a DecodingError is about, for every reader of outside JSON.
        .target(name: "DecodingErrors", path: "Sources/Wire/DecodingErrors"),
        // The URL rules, one type each: which hosts can only mean this machine (LoopbackHost), where tokens may be sent
        // (Endpoint), how a URL compares to a trusted location (URLLocation and its Pattern), percent-encoding.
        .target(name: "URLPolicy", path: "Sources/Wire/URLPolicy"),
        // base64url, the one encoder and decoder; each caller says whether its protocol allows padding.
        .target(name: "Base64", path: "Sources/Wire/Base64"),
        // WebAuthn's JSON forms on FoundationEssentials alone: the agent's protocol speaks them.
        .target(name: "WebAuthnJSON", dependencies: ["Base64"], path: "Sources/Wire/WebAuthnJSON"),
        .target(name: "WebAuthn", dependencies: ["Base64", "WebAuthnJSON", "CBOR", "Hexadecimal", crypto, cryptoExtras, x509, asn1], path: "Sources/Wire/WebAuthn"),
        // What an operation asks the user (PIN, touch, which account): no dependencies, so the light client can use it.
        .target(name: "Interaction", path: "Sources/Wire/Interaction"),

        // MARK: Sources/Devices — security keys and smart cards: libfido2 and pcsc-lite, and the
        // software authenticator `passkey-agent --device virtual` serves.
        // What libfido2's custom I/O hooks talk to: a device speaking CTAPHID in 64-byte packets.
        // FIDO drives it; the virtual authenticator implements it, so neither imports the other.
        .target(name: "PacketDevice", path: "Sources/Devices/PacketDevice"),
        .target(name: "VirtualAuthenticator", dependencies: ["Locking", "PacketDevice", "CBOR", "WebAuthn", "DecodingErrors", "SecureFiles", crypto, cryptoExtras], path: "Sources/Devices/VirtualAuthenticator"),
        .target(name: "SmartCard", dependencies: ["Locking", "CPCSC", "ISO7816"], path: "Sources/Devices/SmartCard"),
        // FIDO2 keys through libfido2: USB (hidraw), the software authenticator through the I/O hooks, and
        // NFC keys on PC/SC readers through libfido2's transport functions over SmartCard (issue 14).
        .target(name: "FIDO", dependencies: ["Locking", "CFIDO2", "CBOR", "WebAuthn", "Interaction", "PacketDevice", "SmartCard", "ISO7816"], path: "Sources/Devices/FIDO"),
        .target(name: "PIV", dependencies: ["Reports", "SmartCard", "Hexadecimal", "ISO7816", "PIVWire", crypto, x509, asn1], path: "Sources/Devices/PIV"),

        // MARK: Sources/Identity — the network: HTTP, WebAuthn ceremonies on a key, passwordless.dev,
        // OAuth token sets, Beyond Identity, Okta IDX.
        .target(name: "HTTPTransport", dependencies: ["URLPolicy", "Hexadecimal", "Locking", httpClient, nio, .product(name: "NIOHTTP1", package: "swift-nio")], path: "Sources/Identity/HTTPTransport"),
        .target(name: "WebAuthnClient", dependencies: ["Base64", "FIDO", "WebAuthn", "CBOR", "Interaction", "URLPolicy", crypto, cryptoExtras], path: "Sources/Identity/WebAuthnClient"),
        .target(name: "Passwordless", dependencies: ["Reports", "WebAuthnClient", "WebAuthn", "FIDO", "Interaction", "DecodingErrors", "HTTPTransport"], path: "Sources/Identity/Passwordless"),
        .target(name: "Tokens", dependencies: ["URLPolicy", "DecodingErrors", "HTTPTransport"], path: "Sources/Identity/Tokens"),
        // OpenID Connect for `passkey login`: discovery, PKCE, the loopback redirect listener, the
        // device grant, ID-token validation (jwt-kit: no hand-written JOSE), revocation.
        .target(name: "OpenID", dependencies: ["URLPolicy", "Base64", "Locking", "Tokens", "HTTPTransport", "DecodingErrors", "Hexadecimal", "SecureFiles", jwtKit, crypto,
                                               nio, nioPosix, nioHTTP1], path: "Sources/Identity/OpenID"),
        // Beyond Identity invoke URLs (issue 12): URL shapes, the request JWT verified against its
        // trusted `jku` (jwt-kit through OpenID's key choice), the proof and passkey binding calls.
        .target(name: "BeyondIdentity", dependencies: ["Base64", "Locking", "OpenID", "Tokens", "HTTPTransport", "WebAuthnClient", "WebAuthnJSON", "URLPolicy", "CPSL", jwtKit], path: "Sources/Identity/BeyondIdentity"),
        // Okta Identity Engine (issue 13): interact, introspect, the remediation forms as the server
        // describes them, WebAuthn enroll/challenge data, the interaction_code grant.
        .target(name: "OktaIDX", dependencies: ["URLPolicy", "Reports", "BoundedJSON", "Base64", "Locking", "OpenID", "Tokens", "HTTPTransport", "WebAuthnJSON", "DecodingErrors"], path: "Sources/Identity/OktaIDX"),

        // MARK: Sources/Agent — the vault, settings, the socket protocol (vocabulary only), the core
        // that runs every method, the server, and the client the CLI uses.
        .target(name: "Vault", dependencies: ["Locking", "FIDO", "Interaction", "PIV", "SmartCard", "Hexadecimal", "ISO7816", "SecureFiles", "WebAuthn", crypto], path: "Sources/Agent/Vault"),
        .target(name: "Settings", dependencies: ["URLPolicy", "SecureFiles"], path: "Sources/Agent/Settings"),
        // Asking the person where no socket client answers: pinentry (PIN, CONFIRM) and a
        // UserInteraction over it, for the CLI without a terminal and the agent's own D-Bus requests.
        .target(name: "Prompts", dependencies: ["CSpawn", "Interaction", "Hexadecimal"], path: "Sources/Agent/Prompts"),
        .target(name: "AgentProtocol", dependencies: ["Reports", "BoundedJSON", "BuildInfo", "Interaction", "WebAuthnJSON"], path: "Sources/Agent/AgentProtocol"),
        .target(name: "AgentClient", dependencies: ["AgentProtocol", "Interaction"], path: "Sources/Agent/AgentClient"),
        // The agent's capabilities, each a target with its own state and `register(into:)`, over the runtime they
        // share (paths, live settings, the HTTP client, counters) and the method table; AgentCore composes them.
        .target(name: "AgentRuntime", dependencies: ["AgentProtocol", "DecodingErrors", "HTTPTransport", "Interaction", "Locking", "Prompts", "Settings"],
                path: "Sources/Agent/AgentRuntime"),
        .target(name: "AgentDevices", dependencies: ["AgentProtocol", "AgentRuntime", "Base64", "FIDO", "HTTPTransport", "Hexadecimal", "Interaction", "Locking",
                                                     "Passwordless", "Settings", "Tokens", "VirtualAuthenticator", "WebAuthn", "WebAuthnClient"],
                path: "Sources/Agent/AgentDevices"),
        .target(name: "AgentVault", dependencies: ["AgentDevices", "AgentProtocol", "AgentRuntime", "FIDO", "Hexadecimal", "Interaction", "Locking", "Settings",
                                                   "Vault", "WebAuthnClient"], path: "Sources/Agent/AgentVault"),
        .target(name: "AgentCard", dependencies: ["AgentProtocol", "AgentRuntime", "PIV", "PIVWire", "SmartCard"], path: "Sources/Agent/AgentCard"),
        .target(name: "AgentTokens", dependencies: ["AgentProtocol", "AgentRuntime", "AgentVault", "HTTPTransport", "Locking", "OpenID", "Settings", "Tokens",
                                                    "Vault"], path: "Sources/Agent/AgentTokens"),
        .target(name: "AgentLogin", dependencies: ["URLPolicy", "AgentDevices", "AgentProtocol", "AgentRuntime", "AgentTokens", "AgentVault", "BeyondIdentity", "HTTPTransport",
                                                   "Interaction", "Locking", "OktaIDX", "OpenID", "SecureFiles", "Settings", "Tokens", "Vault", "WebAuthn",
                                                   "WebAuthnClient", "WebAuthnJSON"], path: "Sources/Agent/AgentLogin"),
        // The composition root: builds the capabilities and answers `agent.status` and `devices.list`.
        .target(name: "AgentCore", dependencies: ["AgentCard", "AgentDevices", "AgentLogin", "AgentProtocol", "AgentRuntime", "AgentTokens", "AgentVault",
                                                  "FIDO", "Hexadecimal", "Interaction", "Locking", "Settings", "WebAuthnClient"], path: "Sources/Agent/AgentCore"),
        // The URL-scheme handler as a D-Bus-activatable application: `Open` on the session bus runs `invoke`.
        .target(name: "DesktopBus", dependencies: ["URLPolicy", "AgentRuntime", "CSystemd", "AgentCore", "AgentProtocol", "Interaction", "Prompts", "Settings", "Tokens", logging],
                path: "Sources/Agent/DesktopBus"),
        .target(name: "AgentServer", dependencies: ["AgentRuntime", "Locking", "AgentCore", "AgentProtocol", "Interaction", "CMalloc", "DesktopBus",
                                                    nio, nioPosix, logging], path: "Sources/Agent/AgentServer"),

        // MARK: Sources/Programs — the command line and the executables: thin mains.
        // The `passkey` command line: argument parsing, prompts, output.
        // Light on purpose: it is all `passkey` links, so nothing that opens a device or the network.
        .target(name: "PasskeyCLI", dependencies: ["CSpawn", "Locking", "AgentClient", "AgentProtocol", "Interaction", "Prompts", "StandardError", "BuildInfo", "DecodingErrors", "Settings",
                                                  "WebAuthnJSON", "Hexadecimal", "URLPolicy", argumentParser], path: "Sources/Programs/PasskeyCLI",
                swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]),  // async code stays on the caller's thread
        // `passkey` is the light client (no device libraries); it execs `passkey-local`, the same
        // commands with the agent's core, when no agent answers (docs/ARCHITECTURE.md, "Programs").
        // The light client a script runs in a loop is linked fully static in release builds (what
        // scripts/install and scripts/bench make): no ld.so, no relocating libc and libstdc++ at each
        // start — about 1 ms of `passkey token get`'s 2.3 (docs/BENCHMARKS.md, "peers"). Debug builds
        // (the tests, the sanitizers, which cannot link static executables) stay dynamic.
        .executableTarget(name: "passkey", dependencies: ["PasskeyCLI"], path: "Sources/Programs/passkey",
                          linkerSettings: [.unsafeFlags(["-static-executable"], .when(configuration: .release))]),
        // The names git and docker run for a credential helper called `passkey`: each execs
        // `passkey credential git|docker` with its arguments (PasskeyCLI/TokenConsumers).
        .executableTarget(name: "git-credential-passkey", dependencies: ["PasskeyCLI"], path: "Sources/Programs/git-credential-passkey"),
        .executableTarget(name: "docker-credential-passkey", dependencies: ["PasskeyCLI"], path: "Sources/Programs/docker-credential-passkey"),
        .executableTarget(name: "passkey-local", dependencies: ["PasskeyCLI", "AgentCore", "AgentProtocol", "Interaction"],
                          path: "Sources/Programs/passkey-local"),
        .executableTarget(name: "passkey-agent", dependencies: ["AgentServer", "AgentCore", "Settings", "StandardError", "BuildInfo", argumentParser, logging], path: "Sources/Programs/passkey-agent"),

        // MARK: Simulators — what plays the agent's counterparts in development, the demo, the tests and the
        // benchmark: never part of what ships, so no target under Sources/ uses one (scripts/layers).
        // What every server of the devserver shares: problem answers, JSON and form bodies, the OAuth 2.0
        // pieces both token servers speak, the app's keys and their header check, the clock.
        .target(name: "DevServerBase", dependencies: ["URLPolicy", "Base64", "Locking", "WebAuthn", "DecodingErrors", "Hexadecimal", hummingbird, httpTypes, nio, crypto],
                path: "Simulators/DevServerBase"),
        // passwordless.dev's public and secret API (register and sign-in ceremonies, tokens, aliases, credentials,
        // users) and the devserver's one state file, which also keeps the OAuth server's signing keys.
        .target(name: "PasswordlessDevServer", dependencies: ["DevServerBase", "Base64", "WebAuthn", "Hexadecimal", "SecureFiles", hummingbird, httpTypes,
                                                             crypto, cryptoExtras, logging], path: "Simulators/PasswordlessDevServer"),
        // The Beyond-Identity-like IdP under /bi: OIDC with signed request JWTs, the passkey proof, binding jobs.
        .target(name: "BeyondIdentityDevServer", dependencies: ["DevServerBase", "URLPolicy", "Base64", "WebAuthn", "Hexadecimal", hummingbird, httpTypes, nio, jwtKit,
                                                               crypto, cryptoExtras], path: "Simulators/BeyondIdentityDevServer"),
        // The Okta-like OAuth 2.0 / OpenID Connect server: signs users in on the passwordless side or through the
        // BI IdP; its token endpoint also redeems IDX interaction codes.
        .target(name: "OAuthDevServer", dependencies: ["DevServerBase", "URLPolicy", "PasswordlessDevServer", "BeyondIdentityDevServer", "Base64", "WebAuthn", "Hexadecimal",
                                                      hummingbird, httpTypes, jwtKit, crypto, logging], path: "Simulators/OAuthDevServer"),
        // The Okta Identity Engine (IDX) subset: interact, the remediations, WebAuthn enrolment and challenge, the interaction code.
        .target(name: "IDXDevServer", dependencies: ["DevServerBase", "OAuthDevServer", "Base64", "WebAuthn", "Hexadecimal", "SecureFiles",
                                                    hummingbird, httpTypes, nio, crypto], path: "Simulators/IDXDevServer"),
        // passkey-devserver as a library: the four servers on one loopback listener, one route table, one browser boundary.
        .target(name: "DevServer", dependencies: ["DevServerBase", "PasswordlessDevServer", "BeyondIdentityDevServer", "OAuthDevServer", "IDXDevServer",
                                                 "Base64", "WebAuthn", "URLPolicy", hummingbird, httpTypes, serviceLifecycle, nio, logging],
                path: "Simulators/DevServer"),
        // A PIV card and a FIDO2-over-NFC applet behind pcscd's vpcd reader, so PC/SC code meets the real pcscd.
        .target(name: "VirtualCard", dependencies: ["Locking", "Hexadecimal", "ISO7816", "PIVWire", "SecureFiles", "VirtualAuthenticator", crypto, logging], path: "Simulators/VirtualCard"),
        // The devserver as a program: the demo, the tests and a developer run it on loopback.
        .executableTarget(name: "passkey-devserver", dependencies: ["DevServer", "DevServerBase", "BeyondIdentityDevServer", "OAuthDevServer", "IDXDevServer",
                                                                   "WebAuthn", "StandardError", "BuildInfo", argumentParser, logging], path: "Simulators/passkey-devserver"),
        // The virtual card as a program, attached to a vpcd reader.
        .executableTarget(name: "passkey-vcard", dependencies: ["VirtualCard", "VirtualAuthenticator", "BuildInfo", argumentParser, logging], path: "Simulators/passkey-vcard"),
        // `passkey demo`: each feature end to end against the devserver, the virtual card and the software key.
        .executableTarget(name: "passkey-demo", dependencies: ["URLPolicy", "CSpawn", "PasskeyCLI", "BuildInfo", "AgentCore", "AgentProtocol", "Passwordless", "OpenID",
                                                              "DevServer", "OAuthDevServer", "IDXDevServer", "HTTPTransport", "Settings", argumentParser], path: "Simulators/passkey-demo"),

        // MARK: Benchmarks — the figures docs/BENCHMARKS.md records (release build); may use Sources and Simulators.
        // The floor for the agent's socket round trip: a minimal C epoll server (AgentSocketBenchmarks).
        .executableTarget(name: "passkey-bench-epoll", path: "Benchmarks/passkey-bench-epoll"),
        // Depends on the programs it runs, so one build makes them all.
        .executableTarget(name: "passkey-bench", dependencies: ["URLPolicy", "Locking", "FIDO", "SmartCard", "ISO7816", "Interaction", "VirtualAuthenticator", "WebAuthn", "WebAuthnClient", "Passwordless", "HTTPTransport", "DevServer", "DevServerBase", "OAuthDevServer", "OpenID", "Settings", "StandardError", "passkey-agent", "passkey", "passkey-local", "passkey-vcard", "passkey-bench-epoll", "Harness", crypto, argumentParser], path: "Benchmarks/passkey-bench"),

        // Build tooling: not a layer of what ships.
        .plugin(name: "BuildCommit", capability: .buildTool(), path: "Plugins/BuildCommit"),

        // MARK: Fuzzing (docs/FUZZING.md): one target per parser of outside bytes,
        // run by libFuzzer in the build scripts/fuzz makes (see the end of this file).
        .target(name: "FuzzTargets", dependencies: ["URLPolicy", "Base64", "CBOR", "FIDO", "Interaction", "PacketDevice", "VirtualAuthenticator", "WebAuthn", "WebAuthnClient", "SmartCard",
                                                   "ISO7816", "PIVWire", "VirtualCard", "Tokens", "OpenID", "BeyondIdentity", "OktaIDX", "DevServerBase", "BeyondIdentityDevServer", "OAuthDevServer", "IDXDevServer", "Settings", "AgentProtocol", "AgentClient", "PasskeyCLI",
                                                   crypto, logging],
                path: "Fuzz/Targets"),
        // Fuzz build: ASan's runtime, and lld (gold fails on this binary); scripts/fuzz
        // adds libFuzzer's no-main runtime, since SwiftPM gives every executable a main.
        .executableTarget(name: "passkey-fuzz", dependencies: ["FuzzTargets", "StandardError"], path: "Fuzz/Driver",
                          linkerSettings: fuzzing ? [.unsafeFlags(["-sanitize=address", "-use-ld=lld"])] : []),

        // MARK: The harness: child processes, a private pcscd with the virtual card, the agent and
        // devserver launchers, the socket client, a loopback token endpoint; used by the tests and
        // passkey-bench, never linked into a shipped program. No test framework, no Foundation.
        .target(name: "Harness", dependencies: ["CSpawn", "Locking"], path: "Harness"),
        // Test support shared by the test targets: the harness plus what needs Foundation or the
        // WebAuthn model (JSON answers, the software authenticator, fixtures).
        .target(name: "TestSupport", dependencies: ["Harness", "WebAuthn", "CBOR", crypto], path: "Tests/TestSupport"),
        // The software authenticator through libfido2 and the person holding it, scripted: FIDOTests, WebAuthnClientTests, PasswordlessTests.
        .target(name: "FIDOTestSupport", dependencies: ["FIDO", "Interaction", "Locking", "VirtualAuthenticator"], path: "Tests/FIDOTestSupport"),
        // The Agent tests' common ground: the runtime, devices and vault composed as CoreServices does (CapabilityStack), the
        // agent's server started in this process (InProcessAgent), and the person scripted or refusing, all in a temporary home.
        .target(name: "AgentTestSupport", dependencies: ["AgentCore", "AgentDevices", "AgentProtocol", "AgentRuntime", "AgentServer", "AgentVault", "Harness",
                                                     "Interaction", "Locking", logging],
                path: "Tests/AgentTestSupport"),
        // The devserver's test clients (passwordless, OAuth, BI, IDX) over loopback HTTP, in process or against the program:
        // shared by DevServerTests and DevServerScenarios.
        .target(name: "DevServerTestSupport", dependencies: ["Base64", "Locking", "TestSupport", "DevServer", "DevServerBase", "IDXDevServer", "WebAuthn", jwtKit, crypto],
                path: "Tests/DevServerTestSupport"),

        // MARK: Tests.
        .testTarget(name: "CBORTests", dependencies: ["TestSupport", "CBOR"]),
        .testTarget(name: "WebAuthnTests", dependencies: ["Base64", "TestSupport", "WebAuthn", "CBOR", crypto, x509, asn1]),
        .testTarget(name: "VirtualAuthenticatorTests",
                    dependencies: ["Locking", "TestSupport", "VirtualAuthenticator", "CBOR", "WebAuthn", crypto, cryptoExtras]),
        .testTarget(name: "FIDOTests", dependencies: ["FIDOTestSupport", "Locking", "TestSupport", "FIDO", "Interaction", "CFIDO2", "VirtualAuthenticator", "WebAuthn", "WebAuthnClient", "SmartCard", "ISO7816",
                                                  "CBOR", crypto]),
        // The FIDO2 card client and requests both the in-process applet tests and the pcscd suite send.
        .target(name: "SmartCardTestSupport", dependencies: ["CBOR", "ISO7816", "SmartCard", crypto], path: "Tests/SmartCardTestSupport"),
        // The card applets and the PC/SC client in process; the real pcscd is in Scenarios/SmartCardScenarios.
        .testTarget(name: "SmartCardTests",
                    dependencies: ["SmartCardTestSupport", "Reports", "TestSupport", "Hexadecimal", "ISO7816", "SmartCard", "PIV", "VirtualCard", "VirtualAuthenticator", "CBOR", "WebAuthn", crypto, x509, logging]),
        // The devserver's servers in process, over loopback HTTP; the program itself is in Scenarios/DevServerScenarios.
        .testTarget(name: "DevServerTests", dependencies: ["URLPolicy", "Base64", "Locking", "TestSupport", "DevServerTestSupport", "DevServer", "DevServerBase",
                                                     "OAuthDevServer", "IDXDevServer", "WebAuthn", "CBOR", jwtKit, crypto]),
        .testTarget(name: "SettingsTests", dependencies: ["TestSupport", "Settings", "Harness"]),
        .testTarget(name: "InteractionTests", dependencies: ["TestSupport", "Interaction", "Prompts"]),
        .testTarget(name: "SecureFilesTests", dependencies: ["TestSupport", "SecureFiles"]),
        .testTarget(name: "DecodingErrorsTests", dependencies: ["TestSupport", "DecodingErrors"]),
        .testTarget(name: "PIVWireTests", dependencies: ["TestSupport", "PIVWire", "Hexadecimal"]),
        .testTarget(name: "HexadecimalTests", dependencies: ["TestSupport", "Hexadecimal"]),
        .testTarget(name: "Base64Tests", dependencies: ["Base64", "TestSupport"]),
        .testTarget(name: "URLPolicyTests", dependencies: ["URLPolicy", "TestSupport"]),
        .testTarget(name: "AgentProtocolTests", dependencies: ["TestSupport", "AgentClient", "AgentProtocol"]),
        // The CLI's side of the socket in process: its deadlines, its socket, and AgentConnection against the agent's server started here.
        .testTarget(name: "AgentClientTests", dependencies: ["AgentTestSupport", "AgentClient", "AgentServer", "AgentCore", "AgentProtocol", "Interaction", "Locking",
                                                       "Harness", "TestSupport", logging]),
        // The test support itself: the suites' own threads, signalling only the process a test opened.
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"]),
        // AgentCore's method table called in-process: no socket, no child process.
        .testTarget(name: "AgentCoreTests", dependencies: ["AgentRuntime", "TestSupport", "Harness", "AgentCore", "AgentProtocol", "Interaction"]),
        // AgentServer in process: each pipeline handler on an EmbeddedChannel with virtual time, and the whole server on a
        // socket in a temporary directory, called through the real clients (the program itself is in Scenarios/AgentScenarios).
        .testTarget(name: "AgentServerTests", dependencies: ["AgentTestSupport", "AgentServer", "AgentCore", "AgentProtocol", "AgentClient", "Interaction", "Locking",
                                                       "Harness", "TestSupport", nio, .product(name: "NIOEmbedded", package: "swift-nio"), logging]),
        // Each capability on its own, composed over what it needs as CoreServices composes it, through its methods in-process.
        .testTarget(name: "AgentTokensTests", dependencies: ["AgentTestSupport", "AgentDevices", "AgentProtocol", "AgentRuntime", "AgentTokens", "AgentVault", "Harness",
                                                       "Interaction", "Locking", "Settings", "TestSupport", "Tokens"]),
        .testTarget(name: "AgentVaultTests", dependencies: ["AgentTestSupport", "AgentDevices", "AgentProtocol", "AgentRuntime", "AgentVault", "Harness", "Interaction", "Locking",
                                                      "TestSupport"]),
        .testTarget(name: "AgentDevicesTests", dependencies: ["AgentTestSupport", "AgentDevices", "AgentProtocol", "AgentRuntime", "Harness", "Interaction", "Locking",
                                                        "TestSupport", "WebAuthn"]),
        // Login against the devserver's authorization server, in this process.
        .testTarget(name: "AgentLoginTests", dependencies: ["AgentTestSupport", "AgentDevices", "AgentLogin", "AgentProtocol", "AgentRuntime", "AgentTokens", "AgentVault",
                                                      "DevServer", "HTTPTransport", "Harness", "Interaction", "Locking", "Settings", "TestSupport",
                                                      logging]),
        // The passkey command line in process, no programs run: ScriptedForm against ArgumentParser, the printed
        // forms' builders, option rules and the credential helpers' input.
        .testTarget(name: "PasskeyCLITests", dependencies: ["PasskeyCLI", "AgentProtocol", "TestSupport", argumentParser]),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["TestSupport", "FuzzTargets"]),
        .testTarget(name: "OpenIDTests", dependencies: ["Base64", "Locking", "TestSupport", "OpenID", "Tokens", "HTTPTransport", "Harness", jwtKit, crypto, cryptoExtras]),
        .testTarget(name: "BeyondIdentityTests", dependencies: ["Base64", "Locking", "TestSupport", "BeyondIdentity", "OpenID", "Tokens", "HTTPTransport", "WebAuthnJSON", "Harness", jwtKit, crypto, cryptoExtras]),
        // The IDX client against recorded answers shaped like the public SDK's mocks (Fixtures/), on a loopback server,
        // and against the passkey-devserver program, which IDXDevServerTests and IDXSignInTests spawn: nothing imports
        // it, but the dependency has SwiftPM build the program before this target.
        .testTarget(name: "OktaIDXTests", dependencies: ["URLPolicy", "BoundedJSON", "Base64", "Locking", "TestSupport", "OktaIDX", "OpenID", "Tokens", "HTTPTransport", "WebAuthnJSON", "Harness",
                                                   "passkey-devserver", crypto],
                    exclude: ["Fixtures"]),
        // The vault's format, cache and header lock in process, and the known-answer vault (Fixtures/) that must keep decrypting.
        .testTarget(name: "VaultTests", dependencies: ["TestSupport", "Vault", "FIDO", "VirtualAuthenticator", "Hexadecimal", crypto],
                    exclude: ["Fixtures"]),
        .testTarget(name: "TokensTests", dependencies: ["TestSupport", "Tokens"]),
        // CTAPHID framing and the packet-device connections, read back by a decoder written from the specification.
        .testTarget(name: "PacketDeviceTests", dependencies: ["Locking", "PacketDevice", "TestSupport"]),
        // The one HTTP client's rules against real loopback servers: schemes, redirects, size limit, deadline, cancellation.
        .testTarget(name: "HTTPTransportTests", dependencies: ["HTTPTransport", "Harness", "Locking", "TestSupport", nio]),
        // The WebAuthn client's ceremonies on the software authenticator through libfido2, judged by the relying-party verifier.
        .testTarget(name: "WebAuthnClientTests", dependencies: ["FIDOTestSupport", "WebAuthnClient", "FIDO", "VirtualAuthenticator", "WebAuthn", "Interaction", "Base64",
                                                          "Locking", "TestSupport", crypto]),
        // The passwordless.dev client against the devserver's API in process, with the software authenticator through libfido2.
        .testTarget(name: "PasswordlessTests", dependencies: ["FIDOTestSupport", "Passwordless", "DevServerTestSupport", "HTTPTransport", "FIDO", "VirtualAuthenticator",
                                                        "WebAuthn", "WebAuthnClient", "Interaction", "BoundedJSON", "Base64", "Harness", "Locking",
                                                        "TestSupport"]),
        // The URL-scheme handler on a real private dbus-daemon, called through sd-bus as a launcher calls it, over a real AgentCore.
        .testTarget(name: "DesktopBusTests", dependencies: ["DesktopBus", "CSystemd", "AgentCore", "AgentProtocol", "Harness", "Locking", "TestSupport",
                                                      logging]),
        // The card capability's error mapping and method table; its methods need pcscd (Scenarios/SmartCardScenarios).
        .testTarget(name: "AgentCardTests", dependencies: ["AgentCard", "AgentProtocol", "AgentRuntime", "ISO7816", "PIV", "SmartCard", "TestSupport"]),

        // MARK: Scenarios — process-level suites: our programs (agent, CLI, devserver, virtual card) and real
        // counterparts (pcscd/vpcd, dbus-daemon, sshd, Chromium, the systemd user manager, git, kubectl, docker).
        .testTarget(name: "AgentScenarios", dependencies: ["TestSupport"], path: "Tests/Scenarios/AgentScenarios"),
        .testTarget(name: "CLIScenarios", dependencies: ["TestSupport", "Harness", "WebAuthn", "CBOR", "Passwordless", "HTTPTransport", crypto],
                    path: "Tests/Scenarios/CLIScenarios"),
        // passkey-devserver as a program: its options, its state file across restarts, BI through Okta on one listener.
        .testTarget(name: "DevServerScenarios", dependencies: ["TestSupport", "DevServerTestSupport", "DevServer", "DevServerBase", "OAuthDevServer", "IDXDevServer",
                                                          "WebAuthn", "passkey-devserver"],
                    path: "Tests/Scenarios/DevServerScenarios"),
        .testTarget(name: "SmartCardScenarios",
                    dependencies: ["SmartCardTestSupport", "Reports", "TestSupport", "Hexadecimal", "ISO7816", "SmartCard", "PIV", "VirtualAuthenticator", "CBOR", "Passwordless", "HTTPTransport",
                                   "passkey-vcard", "passkey", "passkey-local", crypto],
                    path: "Tests/Scenarios/SmartCardScenarios"),
        // The vault, tokens, login, invoke and the token consumers through the real agent and CLI.
        .testTarget(name: "VaultScenarios", dependencies: ["Locking", "TestSupport", "Vault", "AgentCore", "FIDO", "VirtualAuthenticator"],
                    path: "Tests/Scenarios/VaultScenarios"),
    ]
)

// Under PASSKEY_FUZZ=1 our own Swift code gets libFuzzer's coverage
// instrumentation and AddressSanitizer; dependencies do not (their bugs are
// not ours to find, and instrumenting them would double the build).
if fuzzing {
    for target in package.targets where target.type == .regular || target.type == .executable {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=fuzzer,address"]), .define("FUZZING")]
    }
}
