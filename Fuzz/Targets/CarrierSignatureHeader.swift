// libFuzzer: -max_len=4096
import CarrierTracking
import Foundation

// Signature headers and JWKS documents as anyone on the internet can send them, read before any secret is used.
// Parsing must never trap, and what it accepts must be what the schemes allow: HMAC-SHA256 digests of 32 bytes, one
// timestamp of at most 12 digits, a ShipEngine key id of at most 256 bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let header = try? TimestampedSignatureHeader.parse(text, header: "OrderTrack-Signature") {
        precondition(!header.signatures.isEmpty && header.signatures.allSatisfy { $0.count == 32 }, "a v1 that is not an HMAC-SHA256")
        precondition(
            header.seconds >= 0 && header.timestamp.utf8.count <= 12 && Int64(header.timestamp) == header.seconds, "timestamp \(header.timestamp)")
    }
    if let digest = try? EasyPostSignatureHeader.parse(text) {
        precondition(digest.count == 32, "an EasyPost digest of \(digest.count) bytes")
    }
    let parts = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    if parts.count == 3 {
        let headers = CarrierRequestHeaders([
            "x-shipengine-rsa-sha256-key-id": parts[0], "x-shipengine-rsa-sha256-signature": parts[1], "x-shipengine-timestamp": parts[2],
        ])
        if let signature = try? ShipEngineSignature(headers: headers) {
            precondition(
                !signature.keyID.isEmpty && signature.keyID.utf8.count <= 256 && !signature.signature.isEmpty, "signature headers out of bounds")
        }
    }
    if let keys = try? ShipEngineKeySet(jwks: bytes) {
        precondition(!keys.keys.isEmpty && keys.keys.count <= ShipEngineKeySet.maximumKeys, "key set out of bounds")
    }
    return 0
}
