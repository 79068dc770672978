// libFuzzer: -max_len=16384
import ApplePay

// Payment tokens as the Apple Pay endpoints receive them: JSON, Base64 and hex fields, then the CMS signature inside.
// Any input must end in a token or an ApplePayError, never a trap or runaway memory.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let token = try? ApplePayToken(json: UnsafeBufferPointer(start: data, count: size)) {
        _ = try? token.paymentData.signatureCertificates()
    }
    return 0
}
