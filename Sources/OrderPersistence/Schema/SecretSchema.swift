import SQLKit

/// Schema version 9: the master key check. One row holds a known value sealed with the master key, so a wrong or
/// missing key is refused when the store opens, not when a package is first signed. Existing clear secrets are sealed
/// by the first open with a key (``SQLOrderStore``), since migrations never see the key.
enum SecretSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.create(table: "master_key_check")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("sealed", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .run()
    }
}
