import Foundation
import OrderModel
import OrderZip

/// Builds signed `.order` packages: validate, check the order type, hash, sign, zip.
///
/// Static assets go through an ``AssetSet`` once; each build then hashes and compresses only order.json and
/// the manifest, signs, and copies the cached asset bytes into one preallocated zip buffer.
public struct OrderPackageBuilder: Sendable {
    /// Signs the manifest; its ``PackageSigner/orderTypeIdentifier`` must match order.json's.
    public let signer: any PackageSigner
    /// Timestamp of every zip entry; the fixed default makes output depend only on content and signing time.
    public var zipTimestamp: ZipTimestamp
    /// Rules that depend on where the package is used (e.g. http:// web services in local development).
    public var validationOptions: ValidationOptions

    /// A builder that signs with `signer`.
    public init(signer: any PackageSigner, validationOptions: ValidationOptions = ValidationOptions(), zipTimestamp: ZipTimestamp = .fixed) {
        self.signer = signer
        self.validationOptions = validationOptions
        self.zipTimestamp = zipTimestamp
    }

    /// Builds a package from order.json bytes and prepared assets.
    ///
    /// order.json is validated together with the assets (referenced files, localizations, size); warnings end up in
    /// ``BuiltOrderPackage/warnings``.
    ///
    /// - Parameters:
    ///   - orderJSON: The order document.
    ///   - assets: The package's other files.
    ///   - signingTime: The time signed into the signature.
    /// - Throws: ``OrderPackageError/invalidOrder(_:)`` with every schema error,
    ///   ``OrderPackageError/orderTypeIdentifierMismatch(order:certificate:)`` when the signer is for another order
    ///   type, ``OrderPackageError/signingFailed(reason:)`` or ``OrderPackageError/archiveFailed(_:)``.
    public func build(
        orderJSON: [UInt8], assets: AssetSet = .empty, signingTime: Date = Date()
    ) throws(OrderPackageError) -> BuiltOrderPackage {
        var contents = assets.contents
        contents[PackageLayout.orderJSON] = orderJSON
        let (document, report) = OrderValidator.parseAndValidate(
            orderJSON: orderJSON, package: PackageContents(files: contents), options: validationOptions)
        // A valid order always has a string orderTypeIdentifier.
        guard report.isValid, let orderType = document?["orderTypeIdentifier"]?.stringValue else { throw .invalidOrder(report) }
        return try assemble(orderJSON: orderJSON, orderType: orderType, assets: assets, warnings: report.warnings, signingTime: signingTime)
    }

    /// Builds the package of an order validated with its files (an OrderModel `ValidatedOrder`): its bytes are signed as they
    /// are, without parsing or validating them again.
    ///
    /// - Parameters:
    ///   - order: The order and the files it was validated with.
    ///   - cache: Compressed asset contents shared across builds.
    ///   - signingTime: The time signed into the signature.
    /// - Throws: as ``build(orderJSON:assets:signingTime:)``, except that the order is already valid.
    public func build(
        _ order: ValidatedOrder, cache: AssetCache = AssetCache(), signingTime: Date = Date()
    ) throws(OrderPackageError) -> BuiltOrderPackage {
        try assemble(
            orderJSON: order.bytes, orderType: order.orderTypeIdentifier, assets: try AssetSet(files: order.assets, cache: cache),
            warnings: order.warnings, signingTime: signingTime)
    }

    /// Checks the order type against the signer, then hashes, signs and zips a valid order with its assets.
    private func assemble(
        orderJSON: [UInt8], orderType: String, assets: AssetSet, warnings: [ValidationProblem], signingTime: Date
    ) throws(OrderPackageError) -> BuiltOrderPackage {
        if let certificateType = signer.orderTypeIdentifier, certificateType != orderType {
            throw .orderTypeIdentifierMismatch(order: orderType, certificate: certificateType)
        }

        var digests: [(path: String, sha256Hex: String)] = [(PackageLayout.orderJSON, ManifestDigest.sha256Hex(orderJSON))]
        digests.reserveCapacity(assets.assets.count + 1)
        for asset in assets.assets { digests.append((asset.path, asset.sha256Hex)) }
        let manifest = ManifestWriter.json(digests)

        let signature: [UInt8]
        do {
            signature = try signer.signDetached(manifest, signingTime: signingTime)
        } catch {
            throw .signingFailed(reason: String(describing: error))
        }

        do {
            var entries = [try ZipEntry(name: PackageLayout.orderJSON, data: orderJSON, method: .deflated)]
            entries.reserveCapacity(assets.assets.count + 3)
            for asset in assets.assets { entries.append(asset.entry) }
            entries.append(try ZipEntry(name: PackageLayout.manifest, data: manifest, method: .deflated))
            entries.append(try ZipEntry(name: PackageLayout.signature, data: signature, method: .deflated))
            let archive = try ZipWriter.archive(entries, timestamp: zipTimestamp)
            return BuiltOrderPackage(bytes: archive, manifest: manifest, orderTypeIdentifier: orderType, warnings: warnings)
        } catch {
            throw .archiveFailed(error)
        }
    }

    /// Builds a package from a source directory (order.json, images, `*.lproj/`).
    ///
    /// Reads the directory with ``PackageSource/init(directory:)``, then builds as
    /// ``build(orderJSON:assets:signingTime:)`` does.
    public func build(
        sourceDirectory: URL, cache: AssetCache = AssetCache(), signingTime: Date = Date()
    ) throws(OrderPackageError) -> BuiltOrderPackage {
        let source = try PackageSource(directory: sourceDirectory)
        return try build(
            orderJSON: source.orderJSON, assets: AssetSet(files: source.assets, cache: cache), signingTime: signingTime
        )
    }
}
