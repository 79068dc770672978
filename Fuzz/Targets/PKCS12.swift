// libFuzzer: -max_len=8192
import OrderSigning

// PKCS#12 identities. The corpus is encrypted with the password "fuzz" and mostly has no MAC, so mutations reach
// the SafeContents and key decryption past the integrity check.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? SigningIdentity(pkcs12: Array(UnsafeBufferPointer(start: data, count: size)), password: "fuzz")
    return 0
}
