import Testing

@testable import OrderSigning

@Suite("Legacy block ciphers against published test vectors")
struct CipherTests {
    func hex(_ string: String) -> [UInt8] {
        stride(from: 0, to: string.count, by: 2).map {
            let start = string.index(string.startIndex, offsetBy: $0)
            return UInt8(string[start..<string.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    @Test("DES known answer (key 133457799BBCDFF1)")
    func des() {
        let key = hex("133457799BBCDFF1")
        // With K1 = K2 = K3, EDE decryption is single DES decryption.
        let cipher = TripleDES(key: key + key + key)
        #expect(cipher.decryptBlock(hex("85E813540F0AB405")) == hex("0123456789ABCDEF"))
    }

    @Test("RC2 test vectors from RFC 2268 section 5")
    func rc2() {
        #expect(RC2(key: hex("0000000000000000"), effectiveKeyBits: 63).decryptBlock(hex("ebb773f993278eff")) == hex("0000000000000000"))
        #expect(RC2(key: hex("ffffffffffffffff"), effectiveKeyBits: 64).decryptBlock(hex("278b27e42e2f0d49")) == hex("ffffffffffffffff"))
        #expect(RC2(key: hex("3000000000000000"), effectiveKeyBits: 64).decryptBlock(hex("30649edf9be7d2c2")) == hex("1000000000000001"))
        #expect(RC2(key: hex("88"), effectiveKeyBits: 64).decryptBlock(hex("61a8a244adacccf0")) == hex("0000000000000000"))
    }

    @Test("The RC2 PITABLE is a permutation")
    func piTable() {
        #expect(Set(RC2.piTable).count == 256)
    }
}
