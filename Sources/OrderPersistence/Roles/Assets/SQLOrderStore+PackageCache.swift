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

    /// Writes `packages` in one transaction; a package whose order is gone is its own failure.
    private func writePackages(_ packages: [PackageWrite]) async throws -> [Result<Void, any Error>] {
        let operation =
            packages.count == 1
            ? "cache package of \(packages[0].key.orderTypeIdentifier)/\(packages[0].key.orderIdentifier)" : "cache \(packages.count) packages"
        return try await write(operation) { db in
            var results: [Result<Void, any Error>] = []
            for package in packages {
                do {
                    try await Self.requireOrder(db, type: package.key.orderTypeIdentifier, id: package.key.orderIdentifier)
                } catch let error as OrderStoreError {
                    results.append(.failure(error))
                    continue
                }
                try await db.insert(into: "package_cache")
                    .columns("order_type_identifier", "order_identifier", "version", "bytes")
                    .values(package.key.orderTypeIdentifier, package.key.orderIdentifier, package.version, Data(package.bytes))
                    .onConflict(with: ["order_type_identifier", "order_identifier"]) {
                        // A slow builder of an old version must not overwrite a newer package.
                        $0.set(excludedValueOf: "version")
                            .set(excludedValueOf: "bytes")
                            .where(SQLExcludedColumn("version"), .greaterThanOrEqual, SQLColumn("version", table: "package_cache"))
                    }
                    .run()
                results.append(.success(()))
            }
            return results
        }
    }
}
