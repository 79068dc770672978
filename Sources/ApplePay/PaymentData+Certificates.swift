import CMSVerification
import X509

extension ApplePayPaymentData {
    /// The certificates the token's signature carries (Apple's signing leaf and intermediate), read without verifying
    /// anything: for diagnostics, not for trust decisions.
    ///
    /// - Throws: ``ApplePayError/Code/invalidSignature`` when the signature is not a readable CMS SignedData.
    public func signatureCertificates() throws(ApplePayError) -> [Certificate] {
        do {
            return try CMSSignedData(ber: signature).certificates
        } catch {
            throw ApplePayError(.invalidSignature, "the signature is not readable: \(error.reason)")
        }
    }
}
