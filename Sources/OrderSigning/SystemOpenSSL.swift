#if canImport(Glibc)
    import Glibc
#endif

/// RSA private-key operations by the system's OpenSSL, loaded at run time when it is there.
///
/// Why not only swift-crypto: the BoringSSL it bundles signs RSA-2048 at about 1,500 signatures a second per core on
/// the development machine's CPU, Debian's OpenSSL 3 (libcrypto.so.3, whose RSA code uses AVX-512 IFMA where the CPU
/// has it) at 3,600 to 3,900 (2026-12-02). A package's signature was 17 % of the server's CPU in the soak. The library
/// is opened, not linked, so building needs no OpenSSL headers and a machine without it (macOS, a slim image) signs
/// with BoringSSL as before; both give the same bytes (PKCS #1 v1.5 signatures are deterministic).
/// `ORDERTRACK_SYSTEM_OPENSSL=0` keeps BoringSSL.
struct SystemOpenSSL: @unchecked Sendable {
    // The four functions of OpenSSL's RSA API (present from 1.1 to 3.x) that a PKCS #1 v1.5 signature needs.
    typealias DecodePrivateKey =
        @convention(c) (
            UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int
        ) -> OpaquePointer?
    typealias Sign =
        @convention(c) (
            Int32, UnsafePointer<UInt8>, UInt32, UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt32>, OpaquePointer
        ) -> Int32
    typealias Size = @convention(c) (OpaquePointer) -> Int32
    typealias Free = @convention(c) (OpaquePointer) -> Void

    let decodePrivateKey: DecodePrivateKey
    let sign: Sign
    let size: Size
    let free: Free

    /// OpenSSL's NID for SHA-256.
    static let sha256NID: Int32 = 672

    /// The loaded library, or nil where there is none (or it is turned off).
    static let shared: SystemOpenSSL? = load()

    private static func load() -> SystemOpenSSL? {
        #if canImport(Glibc)
            if let setting = getenv("ORDERTRACK_SYSTEM_OPENSSL"), String(cString: setting) == "0" { return nil }
            for name in ["libcrypto.so.3", "libcrypto.so.1.1"] {
                guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else { continue }
                if let decode = dlsym(handle, "d2i_RSAPrivateKey"), let sign = dlsym(handle, "RSA_sign"),
                    let size = dlsym(handle, "RSA_size"), let free = dlsym(handle, "RSA_free")
                {
                    // The handle stays open for the process's life: the keys made with it live as long.
                    return SystemOpenSSL(
                        decodePrivateKey: unsafeBitCast(decode, to: DecodePrivateKey.self),
                        sign: unsafeBitCast(sign, to: Sign.self),
                        size: unsafeBitCast(size, to: Size.self),
                        free: unsafeBitCast(free, to: Free.self))
                }
                dlclose(handle)
            }
        #endif
        return nil
    }
}

/// An RSA private key held by the system's OpenSSL. OpenSSL allows concurrent private-key operations on one key.
final class SystemRSAKey: @unchecked Sendable {
    private let library: SystemOpenSSL
    private let key: OpaquePointer
    /// The signature's length in bytes (the modulus's).
    let signatureLength: Int

    /// The key from its PKCS #1 `RSAPrivateKey` DER, or nil if OpenSSL is not there or does not take it.
    init?(pkcs1DER der: [UInt8], library: SystemOpenSSL? = .shared) {
        guard let library, !der.isEmpty else { return nil }
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = UnsafePointer(buffer.baseAddress)
            return library.decodePrivateKey(nil, &cursor, buffer.count)
        }
        guard let parsed else { return nil }
        self.library = library
        self.key = parsed
        self.signatureLength = Int(library.size(parsed))
    }

    deinit {
        // RSA_free clears the private components before freeing them.
        library.free(key)
    }

    /// The PKCS #1 v1.5 signature of a SHA-256 digest, or nil if OpenSSL failed.
    func signature(sha256Digest digest: [UInt8]) -> [UInt8]? {
        precondition(digest.count == 32)
        var signature = [UInt8](repeating: 0, count: signatureLength)
        var length: UInt32 = 0
        let succeeded = signature.withUnsafeMutableBufferPointer { output in
            digest.withUnsafeBufferPointer { input in
                library.sign(SystemOpenSSL.sha256NID, input.baseAddress!, 32, output.baseAddress!, &length, key) == 1
            }
        }
        guard succeeded, Int(length) == signatureLength else { return nil }
        return signature
    }
}
