import SQLKit

/// Schema version 24: PostgreSQL no longer announces changes of registrations (``RegistrationNotificationSchema`` made
/// it, for devices' lists kept in memory). Instances read every list from the database now, since an announcement can
/// arrive after the push of the change it announces; a `NOTIFY` per registration would only lengthen its commit.
enum RegistrationSilenceSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        guard db.dialect.name == "postgresql" else { return }
        try await db.raw("DROP TRIGGER IF EXISTS registrations_announce ON registrations").run()
    }
}
