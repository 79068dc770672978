import Foundation
import SQLKit

extension SQLOrderStore {
    static let carrierConnectionColumns = ["id", "merchant_id", "provider", "secret", "jwks_url", "status_map", "created_at"]

    /// Stores a new connection, its secret sealed with the master key.
    ///
    /// - Throws: ``OrderStoreError/merchantNotFound(id:)``.
    public func addCarrierConnection(_ record: CarrierConnectionRecord) async throws {
        let secret = try record.secret.map { try sealBlob($0, table: "carrier_connections", column: "secret", key: record.id) }
        let statusMap = try record.statusMap.map { try Self.encodeJSON($0, name: "statusMap") }
        try await write("add carrier connection \(record.id) for merchant \(record.merchantID)") { db in
            try await Self.requireMerchant(db, record.merchantID)
            try await db.insert(into: "carrier_connections")
                .columns(Self.carrierConnectionColumns)
                .values(record.id, record.merchantID, record.provider, secret, record.jwksURL, statusMap, record.createdAt.millisecondsSince1970)
                .run()
        }
    }

    /// The merchant's connections, oldest first.
    public func carrierConnections(merchantID: String) async throws -> [CarrierConnectionRecord] {
        try await read("list carrier connections of merchant \(merchantID)") { db in
            try await db.select().columns(Self.carrierConnectionColumns).from("carrier_connections")
                .where("merchant_id", .equal, merchantID)
                .orderBy("created_at").orderBy("id")
                .all()
                .map(self.carrierConnection(from:))
        }
    }

    /// The connection with this id, or `nil`.
    public func carrierConnection(id: String) async throws -> CarrierConnectionRecord? {
        try await read("read carrier connection \(id)") { db in
            try await db.select().columns(Self.carrierConnectionColumns).from("carrier_connections")
                .where("id", .equal, id)
                .first()
                .map(self.carrierConnection(from:))
        }
    }

    /// Deletes one of the merchant's connections, and its events by ON DELETE CASCADE; `false` if the merchant has none
    /// with this id.
    public func deleteCarrierConnection(merchantID: String, id: String) async throws -> Bool {
        try await write("delete carrier connection \(id)") { db in
            try await db.delete(from: "carrier_connections")
                .where("merchant_id", .equal, merchantID).where("id", .equal, id)
                .returning("id")
                .all()
                .count > 0
        }
    }

    func carrierConnection(from row: any SQLRow) throws -> CarrierConnectionRecord {
        let id = try row.string("id")
        let secret = try row.decodeNil(column: "secret") ? nil : try row.bytes("secret")
        let opened = try secret.map {
            String(decoding: try open(String(decoding: $0, as: UTF8.self), table: "carrier_connections", column: "secret", key: id), as: UTF8.self)
        }
        let statusMap: [String: String]?
        do {
            statusMap = try row.optionalString("status_map").map { try JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
        } catch {
            throw OrderStoreError.corruptRecord(table: "carrier_connections", reason: "status map of \(id): \(error)")
        }
        return CarrierConnectionRecord(
            id: id, merchantID: try row.string("merchant_id"), provider: try row.string("provider"), secret: opened,
            jwksURL: try row.optionalString("jwks_url"), statusMap: statusMap, createdAt: try row.date("created_at"))
    }
}
