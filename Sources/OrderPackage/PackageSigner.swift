import Foundation

/// Something that can sign an order package's manifest: in production an Order Type ID signing identity.
public protocol PackageSigner: Sendable {
    /// The order type identifier the signing certificate is for, if it names one.
    var orderTypeIdentifier: String? { get }
    /// DER detached CMS SignedData over `manifest`.
    func signDetached(_ manifest: [UInt8], signingTime: Date) throws -> [UInt8]
}
