import OrderModel
import OrderZip

/// Why a package could not be built.
public enum OrderPackageError: Error, Sendable, CustomStringConvertible {
    /// order.json breaks the schema; the report lists every problem.
    case invalidOrder(ValidationReport)
    /// The signing certificate is for another order type than order.json names.
    case orderTypeIdentifierMismatch(order: String, certificate: String)
    /// An asset uses a name the builder writes itself (`order.json`, `manifest.json`, `signature`).
    case reservedAssetName(String)
    /// An asset path is not a safe relative path.
    case invalidAssetPath(String)
    /// The source directory has no top-level order.json.
    case missingOrderJSON(directory: String)
    /// A file or the source directory could not be read.
    case unreadableSource(path: String, reason: String)
    /// The signer failed to sign the manifest.
    case signingFailed(reason: String)
    /// The zip archive could not be written (an entry too large, or zlib failed).
    case archiveFailed(ZipWriteError)
    /// The built package could not be written to disk.
    case writeFailed(path: String, reason: String)

    /// What went wrong and how to fix it; for ``invalidOrder(_:)`` one problem per line.
    public var description: String {
        switch self {
        case .invalidOrder(let report):
            "order.json is invalid (\(report.errors.count) error(s)):\n"
                + report.problems.map { "  \($0)" }.joined(separator: "\n")
        case .orderTypeIdentifierMismatch(let order, let certificate):
            "order.json has orderTypeIdentifier '\(order)' but the signing certificate is for '\(certificate)': "
                + "sign with that order type's certificate or fix order.json"
        case .reservedAssetName(let name):
            "asset '\(name)' uses a name the builder writes itself; rename it"
        case .invalidAssetPath(let path):
            "asset path '\(path)' is not a safe relative path: use '/'-separated names without '..', leading '/' or '\\'"
        case .missingOrderJSON(let directory):
            "\(directory) has no order.json at its top level"
        case .unreadableSource(let path, let reason):
            "cannot read \(path): \(reason)"
        case .signingFailed(let reason):
            "signing the manifest failed: \(reason)"
        case .archiveFailed(let error):
            "writing the zip failed: \(error)"
        case .writeFailed(let path, let reason):
            "cannot write \(path): \(reason)"
        }
    }
}
