import Foundation
import OrderSigning
import TestSupport

/// An order type's signing identity as a merchant uploads it: a PKCS#12 file.
///
/// Unlike the hierarchies of the other test targets (APNs' TLS, Apple Pay's marked certificates, the backdated Order
/// Type ID leaves of the package tests), this one must be a chain development mode trusts, with a key derivation cost
/// of the test's choosing: the server's own development identity, exported by openssl.
package enum DevelopmentPKCS12 {
    /// A PKCS#12 made by openssl from a development identity for `orderTypeIdentifier`, password "pw", its key
    /// derived `iterations` times.
    package static func make(orderTypeIdentifier: String, iterations: Int) throws -> [UInt8] {
        let files = try OpenSSLCertificates("ordertrack-p12")
        defer { files.remove() }
        // A development identity's chain (its stand-in WWDR travels in the PKCS#12): development mode accepts it, never
        // a self-signed certificate.
        _ = try DevelopmentIdentity.create(orderTypeIdentifier: orderTypeIdentifier, in: files.directory, validity: 2 * 86_400)
        // Above the cap only the key bag is encrypted and there is no MAC: openssl then derives once, not three
        // times, and the file is still refused on its key bag.
        let cheap = iterations > 600_000 ? ["-nomac", "-certpbe", "NONE"] : []
        try files.openssl(
            [
                "pkcs12", "-export", "-inkey", "key.pem", "-in", "certificate.pem", "-certfile", "wwdr.pem", "-passout", "pass:pw",
                "-iter", String(iterations), "-out", "identity.p12",
            ] + cheap)
        return try files.bytes("identity.p12")
    }
}
