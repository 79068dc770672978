import OrderModel
import OrderPersistence

/// A merchant's asset files (images, PDFs and localizations) that order packages include.
package struct AssetService: Sendable {
    let store: any AssetStore
    /// Forgets the compressed form of contents that are replaced or deleted.
    let packages: PackageService

    /// Stores an asset after checking it is a PNG, JPEG or PDF file, or a `.strings` localization that parses.
    func put(merchant: MerchantRecord, name: String, bytes: [UInt8]) async throws -> AssetInfo {
        let detected = FileType.detect(bytes)
        let isStrings = name.hasSuffix(".strings")
        if isStrings {
            do {
                _ = try StringsFile.parse(bytes)
            } catch {
                throw OrderTrackError(.invalidStrings, "\(name) is not a valid .strings file: \(error)")
            }
        } else if detected == .other {
            throw OrderTrackError(
                .invalidAssetType, "assets must be PNG, JPEG or PDF files, or .lproj/order.strings localizations; \(name) is neither")
        }
        let contentType = isStrings ? "text/plain; charset=utf-8" : detected.mediaType!
        let previous = try await store.asset(merchantID: merchant.id, name: name)?.info.sha256
        let info = try await store.putAsset(
            merchantID: merchant.id, name: name, contentType: contentType, bytes: bytes, sha256: Secrets.sha256Hex(bytes))
        if let previous, previous != info.sha256 { packages.forgetAssetContent(previous) }
        return info
    }

    /// An asset of this merchant.
    package func asset(merchant: MerchantRecord, name: String) async throws -> Asset {
        guard let asset = try await store.asset(merchantID: merchant.id, name: name) else {
            throw OrderTrackError(.notFound, "no asset named \(name)")
        }
        return asset
    }

    /// Deletes an asset of this merchant.
    func delete(merchant: MerchantRecord, name: String) async throws {
        let previous = try await store.asset(merchantID: merchant.id, name: name)?.info.sha256
        guard try await store.deleteAsset(merchantID: merchant.id, name: name) else { throw OrderTrackError(.notFound, "no asset named \(name)") }
        if let previous { packages.forgetAssetContent(previous) }
    }

    /// Every asset of this merchant.
    package func assets(merchant: MerchantRecord) async throws -> [AssetInfo] {
        try await store.assets(merchantID: merchant.id)
    }
}
