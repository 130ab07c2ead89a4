import CLibCrypto
import Crypto
import CryptoExtras
import FoundationEssentials

/// One-block encryption with the card management key (9B), as the PIV
/// challenge-response needs: Triple-DES through OpenSSL (swift-crypto has no
/// DES), AES through swift-crypto (a single block in CBC mode with a zero IV
/// and no padding is exactly the ECB block operation).
struct ManagementKeyCipher {
    let algorithm: UInt8
    let key: [UInt8]

    /// Bytes per cipher block: 8 for 3DES, 16 for AES.
    var blockSize: Int { algorithm == PIVCard.Algorithm.tripleDES ? 8 : 16 }

    static func keyLength(for algorithm: UInt8) -> Int? {
        switch algorithm {
        case PIVCard.Algorithm.tripleDES: return 24
        case PIVCard.Algorithm.aes128: return 16
        case PIVCard.Algorithm.aes192: return 24
        case PIVCard.Algorithm.aes256: return 32
        default: return nil
        }
    }

    func encrypt(_ block: [UInt8]) -> [UInt8]? { crypt(block, encrypt: true) }
    func decrypt(_ block: [UInt8]) -> [UInt8]? { crypt(block, encrypt: false) }

    private func crypt(_ block: [UInt8], encrypt: Bool) -> [UInt8]? {
        guard block.count == blockSize, Self.keyLength(for: algorithm) == key.count else { return nil }
        if algorithm == PIVCard.Algorithm.tripleDES {
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
