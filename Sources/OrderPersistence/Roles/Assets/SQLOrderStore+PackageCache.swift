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
    /// slow build of an old version cannot overwrite a newer package. Packages stored at the same time (every order a
    /// bulk request or the carrier worker changed is built in the background) share one transaction (a group commit).
    ///
    /// - Throws: ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)``.
    public func storePackage(type orderTypeIdentifier: String, id orderIdentifier: String, version: Int, bytes: [UInt8]) async throws {
        let package = PackageWrite(
            key: OrderKey(orderTypeIdentifier: orderTypeIdentifier, orderIdentifier: orderIdentifier), version: version, bytes: bytes)
        try await packageWrites.submit(package) { try await self.writePackages($0) }
    }

    /// One package as ``storePackage(type:id:version:bytes:)`` takes it.
    struct PackageWrite: Sendable {
        var key: OrderKey
        var version: Int
        var bytes: [UInt8]
    }

    /// Writes `packages` with one statement (no explicit transaction: one round trip to the database instead of two and
    /// two per package); a package whose order is gone is its own failure.
    private func writePackages(_ packages: [PackageWrite]) async throws -> [Result<Void, any Error>] {
        let operation =
            packages.count == 1
            ? "cache package of \(packages[0].key.orderTypeIdentifier)/\(packages[0].key.orderIdentifier)" : "cache \(packages.count) packages"
        // One row per order, its newest version: a statement may change a row once.
        var newest: [OrderKey: PackageWrite] = [:]
        for package in packages where package.version > newest[package.key]?.version ?? .min { newest[package.key] = package }
        let rows = newest.values.sorted {
            ($0.key.orderTypeIdentifier, $0.key.orderIdentifier) < ($1.key.orderTypeIdentifier, $1.key.orderIdentifier)
        }
        .map { package -> SQLQueryString in
            "(\(bind: package.key.orderTypeIdentifier), \(bind: package.key.orderIdentifier), \(bind: package.version), \(bind: Data(package.bytes)))"
        }
        // Only for orders that exist; a slow builder of an old version must not overwrite a newer package.
        let written = try await writeStatement(operation) { db in
            try await db.raw(
                """
                INSERT INTO package_cache (order_type_identifier, order_identifier, version, bytes)
                SELECT v.column1, v.column2, v.column3, v.column4 FROM (VALUES \(rows.joined(separator: ", "))) AS v
                JOIN orders o ON o.order_type_identifier = v.column1 AND o.order_identifier = v.column2
                WHERE true
                ON CONFLICT (order_type_identifier, order_identifier) DO UPDATE SET version = excluded.version, bytes = excluded.bytes
                WHERE excluded.version >= package_cache.version
                RETURNING order_type_identifier, order_identifier
                """
            ).all().map { OrderKey(orderTypeIdentifier: try $0.string("order_type_identifier"), orderIdentifier: try $0.string("order_identifier")) }
        }
        // Not written: the order is gone, or a newer package is cached (which is this write's success).
        var existing = Set(written)
        for key in Set(newest.keys).subtracting(existing) where try await order(type: key.orderTypeIdentifier, id: key.orderIdentifier) != nil {
            existing.insert(key)
        }
        return packages.map { package in
            existing.contains(package.key)
                ? .success(())
                : .failure(
                    OrderStoreError.orderNotFound(orderTypeIdentifier: package.key.orderTypeIdentifier, orderIdentifier: package.key.orderIdentifier))
        }
    }
}
