import CLibCrypto
import Crypto
import CryptoExtras
import FoundationEssentials

/// One-block encryption with a management key, as the PIV challenge-response
/// needs: Triple-DES through OpenSSL's EVP (swift-crypto has no DES), AES
/// through swift-crypto (one block of CBC with a zero IV and no padding is the
/// plain block cipher).
struct ManagementKeyCipher {
    let key: PIVManagementKey

    var blockSize: Int { key.algorithm == .tripleDES ? 8 : 16 }

    func encrypt(_ block: [UInt8]) throws(PIVError) -> [UInt8] { try crypt(block, encrypt: true) }
    func decrypt(_ block: [UInt8]) throws(PIVError) -> [UInt8] { try crypt(block, encrypt: false) }

    private func crypt(_ block: [UInt8], encrypt: Bool) throws(PIVError) -> [UInt8] {
        guard block.count == blockSize else {
            throw .malformedResponse(operation: "management-key authentication",
                                     reason: "a \(key.algorithm) block is \(blockSize) bytes, not \(block.count)")
        }
        if key.algorithm == .tripleDES {
            guard let result = tripleDES(block, encrypt: encrypt) else {
                throw .invalidManagementKey("OpenSSL refused the 3DES operation")
            }
            return result
        }
        let symmetricKey = SymmetricKey(data: key.key)
        do {
            let iv = try AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16))
            let result = encrypt
                ? try AES._CBC.encrypt(block, using: symmetricKey, iv: iv, noPadding: true)
                : try AES._CBC.decrypt(block, using: symmetricKey, iv: iv, noPadding: true)
            return Array(result)
        } catch {
            throw .invalidManagementKey("the AES operation failed")
        }
    }

    private func tripleDES(_ block: [UInt8], encrypt: Bool) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CipherInit_ex(context, EVP_des_ede3_ecb(), nil, key.key, nil, encrypt ? 1 : 0) == 1,
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
