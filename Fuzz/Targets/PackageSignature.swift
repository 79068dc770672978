// libFuzzer: -max_len=16384
import CMSVerification

// A package's `signature` file as the doctor reads it: any CMS form (BER or DER, v1 or v3, either signer identifier,
// with or without signed attributes), then each signer checked over a fixed manifest.
private let manifest = Array(#"{"order.json":"0000000000000000000000000000000000000000000000000000000000000000"}"#.utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let signed = try? CMSSignedData(ber: Array(UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    for info in signed.signerInfos {
        _ = signed.certificate(of: info)
        _ = try? signed.verify(info, over: manifest)
    }
    return 0
}
