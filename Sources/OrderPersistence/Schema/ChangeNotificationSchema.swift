import SQLKit

/// Schema version 10: PostgreSQL announces every committed change of an order or an order type with `NOTIFY`, so each
/// instance can keep orders and packages in memory (``StoreChangeFeed/followChanges(_:)``).
///
/// Triggers rather than a statement in each write: no write path, present or future, can forget to announce itself.
/// SQLite has one writing process, so there is nothing to announce there.
enum ChangeNotificationSchema {
    /// The channel every instance listens on; the payload names the schema, so deployments sharing a database in
    /// different schemas ignore each other.
    static let channel = "ordertrack_changes"

    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        guard db.dialect.name == "postgresql" else { return }
        // One function for both tables: only an order row has an order identifier to name.
        try await db.raw(
            """
            CREATE OR REPLACE FUNCTION ordertrack_announce() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE changed RECORD;
            BEGIN
              IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
              IF TG_TABLE_NAME = 'orders' THEN
                PERFORM pg_notify('\(unsafeRaw: channel)', json_build_object('s', TG_TABLE_SCHEMA,
                  't', changed.order_type_identifier, 'o', changed.order_identifier)::text);
              ELSE
                PERFORM pg_notify('\(unsafeRaw: channel)', json_build_object('s', TG_TABLE_SCHEMA,
                  't', changed.order_type_identifier)::text);
              END IF;
              RETURN NULL;
            END $$
            """
        ).run()
        try await db.raw(
            "CREATE TRIGGER orders_announce AFTER INSERT OR UPDATE OR DELETE ON orders FOR EACH ROW EXECUTE FUNCTION ordertrack_announce()"
        ).run()
        try await db.raw(
            """
            CREATE TRIGGER order_types_announce AFTER INSERT OR UPDATE OR DELETE ON order_types FOR EACH ROW \
            EXECUTE FUNCTION ordertrack_announce()
            """
        ).run()
    }
}
