import Crypto

/// Random bytes for challenges and ids.
func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

/// SHA-256 of `text`, as a client data hash.
func hash(_ text: String) -> [UInt8] { Array(SHA256.hash(data: Array(text.utf8))) }
