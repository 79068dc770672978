import Foundation
import OrderModel

/// What the verifier found in a package: every problem at once, and the facts it established.
public struct PackageVerification: Sendable {
    /// Errors and warnings; paths name the file inside the package (or the JSON path inside order.json).
    public var problems: [ValidationProblem]
    /// Non-directory entries of the archive that passed the zip safety checks.
    public var files: [String]
    /// `orderTypeIdentifier` from order.json.
    public var orderTypeIdentifier: String?
    /// The signer certificate's subject, RFC 4514 style.
    public var signerSubject: String?
    /// The order type ID in the signer certificate's subject (UID).
    public var signerOrderTypeIdentifier: String?
    /// Start of the signer certificate's validity.
    public var signerNotValidBefore: Date?
    /// End of the signer certificate's validity.
    public var signerNotValidAfter: Date?
    /// The signing time signed into the CMS attributes.
    public var signingTime: Date?
    /// True only when the signer chained to one of the given trust roots. Without roots the chain is checked up to
    /// the embedded intermediate and this stays false.
    public var anchored: Bool

    /// The problems that make the package unusable.
    public var errors: [ValidationProblem] { problems.filter { $0.severity == .error } }
    /// The problems Wallet tolerates.
    public var warnings: [ValidationProblem] { problems.filter { $0.severity == .warning } }
    /// No errors (warnings allowed).
    public var isValid: Bool { !problems.contains { $0.severity == .error } }
}
