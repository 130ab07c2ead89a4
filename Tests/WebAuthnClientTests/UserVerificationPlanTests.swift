import FIDO
import FIDOTestSupport
import Testing
import TestSupport
import WebAuthn
@testable import WebAuthnClient

/// How a ceremony verifies the user on a given key, decided as browsers
/// decide it from the site's `userVerification` and the key's GetInfo.
/// The keys' infos are the software authenticator's own, as libfido2 read
/// them, with their options set as each kind of key reports them.
@Suite(.ownThreads) struct UserVerificationPlanTests {
    /// A key's info with built-in UV and a PIN as given (nil: the key has no such feature).
    static func info(uv: Bool?, clientPin: Bool?) throws -> AuthenticatorInfo {
        var info = try SoftwareKey().device.info
        info.options["uv"] = uv
        info.options["clientPin"] = clientPin
        return info
    }

    typealias Plan = UserVerificationPlan

    @Test("required: built-in UV when the key has it, else its PIN; a key with neither is pinNotSet or unsupported")
    func required() throws {
        #expect(try Plan(requirement: .required, residentKey: false, device: Self.info(uv: true, clientPin: true)) == Plan(verify: true, needsPIN: false))
        #expect(try Plan(requirement: .required, residentKey: false, device: Self.info(uv: false, clientPin: true)) == Plan(verify: true, needsPIN: true))
        #expect(throws: CeremonyError.authenticator(.pinNotSet)) {
            try Plan(requirement: .required, residentKey: false, device: Self.info(uv: false, clientPin: false))
        }
        #expect {
            try Plan(requirement: .required, residentKey: false, device: Self.info(uv: nil, clientPin: nil))
        } throws: { error in
            guard case .authenticator(.unsupportedOption)? = error as? CeremonyError else { return false }
            return true
        }
    }

    @Test("preferred: verify when the key can (built-in UV, else a set PIN); nothing is demanded of a key that cannot")
    func preferred() throws {
        #expect(try Plan(requirement: .preferred, residentKey: false, device: Self.info(uv: true, clientPin: false)) == Plan(verify: true, needsPIN: false))
        #expect(try Plan(requirement: .preferred, residentKey: false, device: Self.info(uv: false, clientPin: true)) == Plan(verify: true, needsPIN: true))
        #expect(try Plan(requirement: .preferred, residentKey: false, device: Self.info(uv: false, clientPin: false)) == Plan(verify: false, needsPIN: false))
        #expect(try Plan(requirement: .preferred, residentKey: true, device: Self.info(uv: nil, clientPin: nil)) == Plan(verify: false, needsPIN: false))
    }

    @Test("discouraged: no verification, except a discoverable credential on a key that can verify (CTAP 2.1 makeCredUvNotRqd)")
    func discouraged() throws {
        #expect(try Plan(requirement: .discouraged, residentKey: false, device: Self.info(uv: true, clientPin: true)) == Plan(verify: false, needsPIN: false))
        #expect(try Plan(requirement: .discouraged, residentKey: true, device: Self.info(uv: true, clientPin: true)) == Plan(verify: true, needsPIN: false))
        #expect(try Plan(requirement: .discouraged, residentKey: true, device: Self.info(uv: false, clientPin: true)) == Plan(verify: true, needsPIN: true))
        #expect(try Plan(requirement: .discouraged, residentKey: true, device: Self.info(uv: false, clientPin: false)) == Plan(verify: false, needsPIN: false))
    }
}
