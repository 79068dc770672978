import Foundation
import SQLKit

extension SQLOrderStore {
    static let assetInfoColumns = ["merchant_id", "name", "content_type", "sha256", "size", "updated_at"]
    /// ``assetInfoColumns`` as SQL text (see ``orderColumnList``).
    static let assetInfoColumnList = assetInfoColumns.joined(separator: ", ")

    /// Creates or replaces a merchant's asset, dated by the store's clock; returns its metadata.
    ///
    /// - Throws: ``OrderStoreError/merchantNotFound(id:)``.
    @discardableResult
    public func putAsset(merchantID: String, name: String, contentType: String, bytes: [UInt8], sha256: String) async throws -> AssetInfo {
        let info = AssetInfo(
            merchantID: merchantID, name: name, contentType: contentType, sha256: sha256, size: bytes.count, updatedAt: self.now()
        )
        try await write("store asset \(name)") { db in
            try await Self.requireMerchant(db, merchantID)
            try await db.insert(into: "assets")
                .columns(Self.assetInfoColumns + ["bytes"])
                .values(merchantID, name, contentType, sha256, bytes.count, info.updatedAt.millisecondsSince1970, Data(bytes))
                .onConflict(with: ["merchant_id", "name"]) {
                    $0.set(excludedValueOf: "content_type")
                        .set(excludedValueOf: "sha256")
                        .set(excludedValueOf: "size")
                        .set(excludedValueOf: "updated_at")
                        .set(excludedValueOf: "bytes")
                }
                .run()
        }
        return info
    }

    /// A merchant's asset with its bytes, or `nil`.
    public func asset(merchantID: String, name: String) async throws -> Asset? {
        try await read("read asset \(name)") { db in
            try await db.select().columns(Self.assetInfoColumns + ["bytes"]).from("assets")
                .where("merchant_id", .equal, merchantID)
                .where("name", .equal, name)
                .first()
                .map { Asset(info: try Self.assetInfo(from: $0), bytes: try $0.bytes("bytes")) }
        }
    }

    /// The merchant's assets of these names with their bytes, sorted by name, in one read; names it lacks are left out.
    public func assets(merchantID: String, named names: Set<String>) async throws -> [Asset] {
        guard !names.isEmpty else { return [] }
        return try await read("read \(names.count) assets") { db in
            try await db.select().columns(Self.assetInfoColumns + ["bytes"]).from("assets")
                .where("merchant_id", .equal, merchantID)
                .where("name", .in, names.sorted())
                .orderBy("name")
                .all()
                .map { Asset(info: try Self.assetInfo(from: $0), bytes: try $0.bytes("bytes")) }
        }
    }

    /// Deletes an asset; `false` if there was none.
    public func deleteAsset(merchantID: String, name: String) async throws -> Bool {
        try await write("delete asset \(name)") { db in
            try await db.delete(from: "assets")
                .where("merchant_id", .equal, merchantID)
                .where("name", .equal, name)
                .returning("name")
                .first() != nil
        }
    }

    /// The metadata of a merchant's assets, sorted by name.
    public func assets(merchantID: String) async throws -> [AssetInfo] {
        try await read("list assets of merchant \(merchantID)") { db in
            // Raw text: read for every update (see ``orderColumnList``).
            try await db.raw(
                "SELECT \(unsafeRaw: Self.assetInfoColumnList) FROM assets WHERE merchant_id = \(bind: merchantID) ORDER BY name"
            ).all().map(Self.assetInfo(from:))
        }
    }

    static func assetInfo(from row: any SQLRow) throws -> AssetInfo {
        AssetInfo(
            merchantID: try row.string("merchant_id"),
            name: try row.string("name"),
            contentType: try row.string("content_type"),
            sha256: try row.string("sha256"),
            size: try row.int("size"),
            updatedAt: try row.date("updated_at")
        )
    }
}
