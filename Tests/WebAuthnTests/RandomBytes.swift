import TestSupport

/// Random challenges and credential ids for these tests.
func randomBytes(_ count: Int) -> [UInt8] { WebAuthnFixtures.randomBytes(count) }
