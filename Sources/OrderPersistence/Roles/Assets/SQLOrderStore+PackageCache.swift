import Foundation
import SQLKit

extension SQLOrderStore {
    /// The signed package built for this version of the order, if cached.
    public func cachedPackage(type orderTypeIdentifier: String, id orderIdentifier: String, version: Int) async throws -> [UInt8]? {
        try await read("read cached package of \(orderTypeIdentifier)/\(orderIdentifier)") { db in
            try await db.select().column("bytes").from("package_cache")
                .where("order_type_identifier", .equal, orderTypeIdentifier)
                .where("order_identifier", .equal, orderIdentifier)
                .where("version", .equal, version)
                .first()
                .map { try $0.bytes("bytes") }
        }
    }

    /// Caches a signed package, keeping one per order: a newer version replaces an older one, never the reverse, so a
    /// slow build of an old version cannot overwrite a newer package.
    ///
    /// - Throws: ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)``.
    public func storePackage(type orderTypeIdentifier: String, id orderIdentifier: String, version: Int, bytes: [UInt8]) async throws {
        try await write("cache package of \(orderTypeIdentifier)/\(orderIdentifier)") { db in
            try await Self.requireOrder(db, type: orderTypeIdentifier, id: orderIdentifier)
            try await db.insert(into: "package_cache")
                .columns("order_type_identifier", "order_identifier", "version", "bytes")
                .values(orderTypeIdentifier, orderIdentifier, version, Data(bytes))
                .onConflict(with: ["order_type_identifier", "order_identifier"]) {
                    // A slow builder of an old version must not overwrite a newer package.
                    $0.set(excludedValueOf: "version")
                        .set(excludedValueOf: "bytes")
                        .where(SQLExcludedColumn("version"), .greaterThanOrEqual, SQLColumn("version", table: "package_cache"))
                }
                .run()
        }
    }
}
