import Foundation

/// The merchants' assets (images and files that orders' packages embed).
///
/// All methods throw ``OrderStoreError``.
public protocol AssetStore: Sendable {
    /// Creates or replaces an asset.
    @discardableResult
    func putAsset(merchantID: String, name: String, contentType: String, bytes: [UInt8], sha256: String) async throws -> AssetInfo
    /// A merchant's asset with its bytes, or `nil`.
    func asset(merchantID: String, name: String) async throws -> Asset?
    /// The merchant's assets of these names with their bytes, in one read; names it lacks are left out.
    func assets(merchantID: String, named names: Set<String>) async throws -> [Asset]
    /// Deletes an asset; `false` if there was none.
    func deleteAsset(merchantID: String, name: String) async throws -> Bool
    /// The metadata of a merchant's assets, sorted by name.
    func assets(merchantID: String) async throws -> [AssetInfo]
}
