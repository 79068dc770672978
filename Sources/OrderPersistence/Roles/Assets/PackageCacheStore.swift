import Foundation

/// The signed packages built for orders, shared by every instance so that a version is signed once.
///
/// All methods throw ``OrderStoreError``.
public protocol PackageCacheStore: Sendable {
    /// The signed package built for this version of the order, if cached.
    func cachedPackage(type orderTypeIdentifier: String, id orderIdentifier: String, version: Int) async throws -> [UInt8]?
    /// Caches a signed package; only the latest version per order is kept, an older version never replaces a newer one.
    func storePackage(type orderTypeIdentifier: String, id orderIdentifier: String, version: Int, bytes: [UInt8]) async throws
}
