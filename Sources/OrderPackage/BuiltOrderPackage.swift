import Foundation
import OrderModel

/// A signed `.order` package.
public struct BuiltOrderPackage: Sendable {
    /// The zip archive, ready to serve as `application/vnd.apple.finance.order`.
    public let bytes: [UInt8]
    /// The manifest.json that was signed.
    public let manifest: [UInt8]
    /// The order type identifier from order.json.
    public let orderTypeIdentifier: String
    /// Schema warnings; the package was built regardless.
    public let warnings: [ValidationProblem]

    /// Writes the package to `url` (conventionally with the `.order` extension).
    public func write(to url: URL) throws(OrderPackageError) {
        do {
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            throw .writeFailed(path: url.path, reason: error.localizedDescription)
        }
    }
}
