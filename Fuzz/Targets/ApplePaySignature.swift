// libFuzzer: -max_len=8192
import ApplePay

// The BER CMS SignedData of a token's signature, read by our own reader: mutating the decoded bytes reaches deeper
// than mutating their Base64 in a JSON token.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let paymentData = ApplePayPaymentData(
        version: .ecV1, data: [UInt8](repeating: 0, count: 32), signature: Array(UnsafeBufferPointer(start: data, count: size)),
        keyMaterial: .ephemeralPublicKey([]), publicKeyHash: [UInt8](repeating: 0, count: 32), transactionId: "00", applicationData: nil)
    _ = try? paymentData.signatureCertificates()
    return 0
}
