// libFuzzer: -max_len=16384
import OrderSigning

// PEM signing material (certificates, plain and encrypted keys in every supported form). The input is the key PEM,
// so its key and certificate blocks are all parsed before the missing certificate PEM ends the load.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? SigningIdentity(certificatePEM: "", privateKeyPEM: text, keyPassword: "fuzz")
    return 0
}
