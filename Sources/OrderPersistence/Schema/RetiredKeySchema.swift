import SQLKit

/// Schema version 13: the hashes of API key secrets replaced by a rotation, so a caller still sending the old secret
/// learns that the key was rotated and when, instead of "not valid". Only hashes are kept, as for live keys.
enum RetiredKeySchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.create(table: "retired_api_key_hashes")
            .column("key_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("key_id", type: .text, .notNull)
            .column("merchant_id", type: .text, .notNull)
            .column("retired_at", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        try await db.create(index: "retired_api_key_hashes_merchant").on("retired_api_key_hashes").column("merchant_id").run()
    }
}
