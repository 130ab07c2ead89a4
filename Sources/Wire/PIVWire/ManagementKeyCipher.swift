import CLibCrypto
import Crypto
import CryptoExtras

/// One-block encryption with a PIV management key (key reference 9B), as the
/// challenge-response of GENERAL AUTHENTICATE needs on both sides of it:
/// Triple-DES through OpenSSL's EVP (swift-crypto has no DES), AES through
/// swift-crypto (one block of CBC with a zero IV and no padding is exactly the
/// block cipher). The key is a secret: it is never shown.
public struct ManagementKeyCipher: Sendable {
    public let algorithm: UInt8
    private let key: [UInt8]

    /// Any algorithm and key are taken; `encrypt` and `decrypt` answer nil
    /// unless the algorithm is 3DES or AES and the key has its length.
    public init(algorithm: UInt8, key: [UInt8]) {
        self.algorithm = algorithm
        self.key = key
    }

    /// Bytes per cipher block: 8 for 3DES, 16 for AES.
    public var blockSize: Int { algorithm == PIVAlgorithmID.tripleDES ? 8 : 16 }

    /// The key length of a management-key algorithm, nil for any other algorithm.
    public static func keyLength(for algorithm: UInt8) -> Int? {
        switch algorithm {
        case PIVAlgorithmID.tripleDES: return 24
        case PIVAlgorithmID.aes128: return 16
        case PIVAlgorithmID.aes192: return 24
        case PIVAlgorithmID.aes256: return 32
        default: return nil
        }
    }

    /// One block encrypted; nil when `block` is not one block long or the key does not fit the algorithm.
    public func encrypt(_ block: [UInt8]) -> [UInt8]? { crypt(block, encrypt: true) }

    /// One block decrypted; nil when `block` is not one block long or the key does not fit the algorithm.
    public func decrypt(_ block: [UInt8]) -> [UInt8]? { crypt(block, encrypt: false) }

    private func crypt(_ block: [UInt8], encrypt: Bool) -> [UInt8]? {
        guard block.count == blockSize, Self.keyLength(for: algorithm) == key.count else { return nil }
        if algorithm == PIVAlgorithmID.tripleDES {
            return tripleDES(block, encrypt: encrypt)
        }
        let symmetricKey = SymmetricKey(data: key)
        guard let iv = try? AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16)) else { return nil }
        let result = encrypt
            ? try? AES._CBC.encrypt(block, using: symmetricKey, iv: iv, noPadding: true)
            : try? AES._CBC.decrypt(block, using: symmetricKey, iv: iv, noPadding: true)
        return result.map { Array($0) }
    }

    private func tripleDES(_ block: [UInt8], encrypt: Bool) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, EVP_des_ede3_ecb(), nil, key, nil, encrypt ? 1 : 0) == 1,
              EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else { return nil }
        var output = [UInt8](repeating: 0, count: block.count + 8)
        var written: Int32 = 0
        guard EVP_CipherUpdate(context, &output, &written, block, Int32(block.count)) == 1 else { return nil }
        var finalWritten: Int32 = 0
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_CipherFinal_ex(context, buffer.baseAddress.map { $0 + Int(written) }, &finalWritten)
        }
        guard finished == 1, Int(written + finalWritten) == block.count else { return nil }
        return Array(output.prefix(block.count))
    }
}
