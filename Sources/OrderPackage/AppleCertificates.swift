import Foundation
import SwiftASN1
import X509

/// Apple's public certificates that Order Type ID certificates chain to, embedded in the code at build time (see
/// `Resources/README.md` for their fingerprints and where each was confirmed).
public enum AppleCertificates {
    /// Apple Root CA and Apple Root CA - G3: the roots Wallet trusts for orders.
    public static let roots: [Certificate] = parse([PackageResources.AppleRootCA_pem, PackageResources.AppleRootCA_G3_pem])

    /// The Worldwide Developer Relations intermediates G3 to G6, which issue Order Type ID certificates.
    public static let intermediates: [Certificate] = parse([
        PackageResources.AppleWWDRCAG3_pem, PackageResources.AppleWWDRCAG4_pem, PackageResources.AppleWWDRCAG5_pem,
        PackageResources.AppleWWDRCAG6_pem,
    ])

    /// SHA-256 of each certificate's DER, lowercase hex, in the order of `roots` then `intermediates`.
    static let fingerprints: [String] = [
        "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024",
        "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179",
        "dcf21878c77f4198e4b4614f03d696d89c66c66008d4244e1b99161aac91601f",
        "ea4757885538dd8cb59ff4556f676087d83c85e70902c122e42c0808b5bce14c",
        "53fd008278e5a595fe1e908ae9c5e5675f26243264a5a6438c023e3ce2870760",
        "bdd4ed6e74691f0c2bfd01be0296197af1379e0418e2d300efa9c3bef642ca30",
    ]

    /// Whether `certificate` is one of Apple's roots.
    static func isAppleRoot(_ certificate: Certificate) -> Bool { roots.contains(certificate) }

    /// The SHA-256 fingerprint of `certificate`'s DER, lowercase hex.
    static func fingerprint(_ certificate: Certificate) throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return ManifestDigest.sha256Hex(serializer.serializedBytes)
    }

    private static func parse(_ resources: [[UInt8]]) -> [Certificate] {
        resources.map { bytes in
            do {
                return try Certificate(pemEncoded: String(decoding: bytes, as: UTF8.self))
            } catch {
                // The resources are fixed at build time; a test parses them and checks their fingerprints.
                fatalError("an embedded Apple certificate does not parse: \(error)")
            }
        }
    }
}
