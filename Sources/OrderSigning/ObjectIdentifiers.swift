import SwiftASN1

/// Object identifiers used by the key and container formats this module reads.
enum OID {
    // Key algorithms.
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]
    static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    static let curveP256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 3, 1, 7]
    static let curveP384: ASN1ObjectIdentifier = [1, 3, 132, 0, 34]
    static let curveP521: ASN1ObjectIdentifier = [1, 3, 132, 0, 35]

    // PKCS#5 v2 (RFC 8018).
    static let pbes2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 5, 13]
    static let pbkdf2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 5, 12]
    static let hmacWithSHA1: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 7]
    static let hmacWithSHA224: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 8]
    static let hmacWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 9]
    static let hmacWithSHA384: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 10]
    static let hmacWithSHA512: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 11]
    static let aes128CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 2]
    static let aes192CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 22]
    static let aes256CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 42]
    static let desEDE3CBC: ASN1ObjectIdentifier = [1, 2, 840, 113549, 3, 7]

    // PKCS#12 (RFC 7292).
    static let pkcs7Data: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    static let pkcs7SignedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    static let pkcs7EncryptedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 6]
    static let keyBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 1]
    static let pkcs8ShroudedKeyBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 2]
    static let certBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 3]
    static let safeContentsBag: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 10, 1, 6]
    static let x509Certificate: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 22, 1]
    static let pbeWithSHAAnd128BitRC4: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1, 1]
    static let pbeWithSHAAnd40BitRC4: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1, 2]
    static let pbeWithSHAAnd3KeyTripleDESCBC: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1, 3]
    static let pbeWithSHAAnd2KeyTripleDESCBC: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1, 4]
    static let pbeWithSHAAnd128BitRC2CBC: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1, 5]
    static let pbeWithSHAAnd40BitRC2CBC: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 12, 1, 6]

    // Digests (PKCS#12 MAC).
    static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let sha384: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 2]
    static let sha512: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 3]

    // Certificate subject attribute carrying the type identifier in Apple's Pass/Order Type ID certificates.
    static let userID: ASN1ObjectIdentifier = [0, 9, 2342, 19200300, 100, 1, 1]

    /// A readable name for error messages.
    static func name(_ oid: ASN1ObjectIdentifier) -> String {
        names[oid] ?? "unknown algorithm"
    }

    private static let names: [ASN1ObjectIdentifier: String] = [
        rsaEncryption: "rsaEncryption", ecPublicKey: "id-ecPublicKey",
        pbes2: "PBES2", pbkdf2: "PBKDF2",
        hmacWithSHA1: "hmacWithSHA1", hmacWithSHA224: "hmacWithSHA224", hmacWithSHA256: "hmacWithSHA256",
        hmacWithSHA384: "hmacWithSHA384", hmacWithSHA512: "hmacWithSHA512",
        aes128CBC: "aes128-CBC", aes192CBC: "aes192-CBC", aes256CBC: "aes256-CBC", desEDE3CBC: "des-ede3-cbc",
        pkcs7SignedData: "PKCS#7 signedData",
        pbeWithSHAAnd128BitRC4: "pbeWithSHAAnd128BitRC4", pbeWithSHAAnd40BitRC4: "pbeWithSHAAnd40BitRC4",
        pbeWithSHAAnd3KeyTripleDESCBC: "pbeWithSHAAnd3-KeyTripleDES-CBC",
        pbeWithSHAAnd2KeyTripleDESCBC: "pbeWithSHAAnd2-KeyTripleDES-CBC",
        pbeWithSHAAnd128BitRC2CBC: "pbeWithSHAAnd128BitRC2-CBC", pbeWithSHAAnd40BitRC2CBC: "pbeWithSHAAnd40BitRC2-CBC",
        sha1: "SHA-1", sha256: "SHA-256", sha384: "SHA-384", sha512: "SHA-512",
        [1, 2, 840, 113549, 1, 5, 3]: "pbeWithMD5AndDES-CBC", [1, 2, 840, 113549, 1, 5, 10]: "pbeWithSHA1AndDES-CBC",
        [1, 2, 840, 113549, 2, 5]: "MD5", [1, 3, 101, 112]: "Ed25519", [1, 2, 643, 7, 1, 1, 1, 1]: "GOST R 34.10-2012",
        [1, 2, 156, 10197, 1, 104, 2]: "SM4-CBC", [1, 3, 6, 1, 4, 1, 11591, 4, 11]: "scrypt",
        [1, 2, 840, 113549, 1, 5, 14]: "PBMAC1",
    ]
}
