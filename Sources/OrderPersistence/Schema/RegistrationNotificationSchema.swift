import SQLKit

/// Schema version 12: PostgreSQL also announces every committed change of a device's registrations, naming the device,
/// so each instance can keep devices' registration lists in memory (``StoreChangeEvent/registrations(orderTypeIdentifier:deviceLibraryIdentifier:)``).
///
/// The trigger function of ``ChangeNotificationSchema`` is replaced by one that knows the third table. Only a change of
/// a registration's key columns changes a device's list: a re-registration, which refreshes the push token and
/// `registered_at`, announces nothing. An update of the key announces the old and the new device. SQLite has one
/// writing process, so there is nothing to announce there.
enum RegistrationNotificationSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        guard db.dialect.name == "postgresql" else { return }
        let channel = ChangeNotificationSchema.channel
        // pg_notify sends an identical payload once per transaction: an update that keeps the device announces once.
        try await db.raw(
            """
            CREATE OR REPLACE FUNCTION ordertrack_announce() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE changed RECORD;
            BEGIN
              IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
              IF TG_TABLE_NAME = 'orders' THEN
                PERFORM pg_notify('\(unsafeRaw: channel)', json_build_object('s', TG_TABLE_SCHEMA,
                  't', changed.order_type_identifier, 'o', changed.order_identifier)::text);
              ELSIF TG_TABLE_NAME = 'registrations' THEN
                IF TG_OP = 'UPDATE' THEN
                  PERFORM pg_notify('\(unsafeRaw: channel)', json_build_object('s', TG_TABLE_SCHEMA,
                    't', OLD.order_type_identifier, 'd', OLD.device_library_identifier)::text);
                END IF;
                PERFORM pg_notify('\(unsafeRaw: channel)', json_build_object('s', TG_TABLE_SCHEMA,
                  't', changed.order_type_identifier, 'd', changed.device_library_identifier)::text);
              ELSE
                PERFORM pg_notify('\(unsafeRaw: channel)', json_build_object('s', TG_TABLE_SCHEMA,
                  't', changed.order_type_identifier)::text);
              END IF;
              RETURN NULL;
            END $$
            """
        ).run()
        try await db.raw(
            """
            CREATE TRIGGER registrations_announce \
            AFTER INSERT OR DELETE OR UPDATE OF device_library_identifier, order_type_identifier, order_identifier \
            ON registrations FOR EACH ROW EXECUTE FUNCTION ordertrack_announce()
            """
        ).run()
    }
}
