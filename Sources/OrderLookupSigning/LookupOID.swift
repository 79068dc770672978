import SwiftASN1

/// The marker extensions Apple's `SignedDataVerifier` requires on a signed transaction's chain.
///
/// The verifier checks only that they are present, so the chain carries them with an ASN.1 NULL value.
public enum LookupOID {
    /// Marks the leaf as Apple's receipt-signing certificate ("Prod ECC Mac App Store and iTunes Store Receipt
    /// Signing").
    public static let receiptSigningLeaf: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
    /// Marks the intermediate as Apple's WWDR certification authority.
    public static let wwdrIntermediate: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
}
