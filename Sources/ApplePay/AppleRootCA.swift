import X509

/// Apple Root CA - G3, the root every Apple Pay token signature chains to (SHA-256 fingerprint
/// 63343ABF B89A6A03 EBB57E9B 3F5FA7BE 7C4F5C75 6F3017B3 A8C488C3 653E9179).
///
/// Shipped as the resource `Resources/AppleRootCA-G3.pem`, embedded in the code at build time: a pinned root must
/// not be replaceable on disk, and a relocated `ordertrack` binary has no resource bundle next to it.
public enum AppleRootCA {
    /// The certificate as PEM text.
    public static let g3PEM = String(decoding: PackageResources.AppleRootCA_G3_pem, as: UTF8.self)

    /// The parsed certificate.
    public static let g3: Certificate = {
        do {
            return try Certificate(pemEncoded: g3PEM)
        } catch {
            // The resource is fixed at build time; a test parses it.
            fatalError("the embedded Apple Root CA - G3 does not parse: \(error)")
        }
    }()
}
