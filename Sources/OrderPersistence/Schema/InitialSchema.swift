import SQLKit

/// Schema version 1. Dates are integer milliseconds since 1970 (UTC); blobs are BLOB/BYTEA.
enum InitialSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // One row per counter; see SQLOrderStore.nextChangeSequence for why this is not a SEQUENCE.
        try await db.create(table: "counters")
            .column("name", type: .text, .primaryKey(autoIncrement: false))
            .column("value", type: .bigint, .notNull)
            .run()
        try await db.insert(into: "counters").columns("name", "value").values("change", 0).run()

        try await db.create(table: "merchants")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("name", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .run()

        try await db.create(table: "api_keys")
            .column("key_hash", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_id", type: .text, .notNull)
            .column("prefix", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        try await db.create(index: "api_keys_merchant").on("api_keys").column("merchant_id").run()

        try await db.create(table: "order_types")
            .column("order_type_identifier", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_id", type: .text, .notNull)
            .column("identity", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        try await db.create(index: "order_types_merchant").on("order_types").column("merchant_id").run()

        try await db.create(table: "orders")
            .column("order_type_identifier", type: .text, .notNull)
            .column("order_identifier", type: .text, .notNull)
            .column("merchant_id", type: .text, .notNull)
            .column("authentication_token", type: .text, .notNull)
            .column("document", type: .blob, .notNull)
            .column("status", type: .text)
            .column("created_at", type: .bigint, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .column("version", type: .bigint, .notNull)
            .column("change_sequence", type: .bigint, .notNull)
            // The change sequence at creation: immutable, so list cursors stay stable while orders change.
            .column("created_sequence", type: .bigint, .notNull)
            .primaryKey("order_type_identifier", "order_identifier")
            .foreignKey(["order_type_identifier"], references: "order_types", ["order_type_identifier"], onDelete: .cascade)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        try await db.create(index: "orders_merchant_created").unique().on("orders")
            .column("merchant_id").column("created_sequence").run()

        try await db.create(table: "registrations")
            .column("device_library_identifier", type: .text, .notNull)
            .column("order_type_identifier", type: .text, .notNull)
            .column("order_identifier", type: .text, .notNull)
            .column("push_token", type: .text, .notNull)
            .column("registered_at", type: .bigint, .notNull)
            // Leading (device, type) serves the device's registrations list without touching other devices.
            .primaryKey("device_library_identifier", "order_type_identifier", "order_identifier")
            .foreignKey(
                ["order_type_identifier", "order_identifier"],
                references: "orders", ["order_type_identifier", "order_identifier"],
                onDelete: .cascade
            )
            .run()
        try await db.create(index: "registrations_order").on("registrations")
            .column("order_type_identifier").column("order_identifier").run()
        try await db.create(index: "registrations_push_token").on("registrations").column("push_token").run()

        try await db.create(table: "idempotency_keys")
            .column("merchant_id", type: .text, .notNull)
            .column("idempotency_key", type: .text, .notNull)
            .column("request_hash", type: .text, .notNull)
            .column("status", type: .bigint, .notNull)
            .column("body", type: .blob, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .primaryKey("merchant_id", "idempotency_key")
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        try await db.create(index: "idempotency_keys_created").on("idempotency_keys").column("created_at").run()

        try await db.create(table: "assets")
            .column("merchant_id", type: .text, .notNull)
            .column("name", type: .text, .notNull)
            .column("content_type", type: .text, .notNull)
            .column("sha256", type: .text, .notNull)
            .column("size", type: .bigint, .notNull)
            .column("bytes", type: .blob, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .primaryKey("merchant_id", "name")
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()

        try await db.create(table: "package_cache")
            .column("order_type_identifier", type: .text, .notNull)
            .column("order_identifier", type: .text, .notNull)
            .column("version", type: .bigint, .notNull)
            .column("bytes", type: .blob, .notNull)
            .primaryKey("order_type_identifier", "order_identifier")
            .foreignKey(
                ["order_type_identifier", "order_identifier"],
                references: "orders", ["order_type_identifier", "order_identifier"],
                onDelete: .cascade
            )
            .run()
    }
}
