import Foundation
import SQLKit

/// One step of the schema, applied once in its own transaction and recorded in `schema_migrations`.
struct Migration: Sendable {
    var version: Int
    var name: String
    var apply: @Sendable (any SQLDatabase) async throws -> Void
}

/// The ordered schema history. Append new migrations; never edit an applied one.
enum Migrations {
    static let all: [Migration] = [
        Migration(version: 1, name: "initial schema", apply: InitialSchema.apply),
        Migration(version: 2, name: "push outbox", apply: PushOutboxSchema.apply),
        Migration(version: 3, name: "apple pay identities", apply: ApplePaySchema.apply),
        Migration(version: 4, name: "dashboard sessions and order numbers", apply: DashboardSchema.apply),
        Migration(version: 5, name: "order activity and dashboard list indexes", apply: ActivitySchema.apply),
        Migration(version: 6, name: "merchant order defaults and wallet links", apply: ProviderSchema.apply),
        Migration(version: 7, name: "order lookup keys and signing chain", apply: LookupSchema.apply),
        Migration(version: 8, name: "restricted API keys and the order audit trail", apply: APIKeySchema.apply),
        Migration(version: 9, name: "master key check", apply: SecretSchema.apply),
        Migration(version: 10, name: "change notifications", apply: ChangeNotificationSchema.apply),
        Migration(version: 11, name: "push claims in index order", apply: PushClaimIndexSchema.apply),
        Migration(version: 12, name: "registration change notifications", apply: RegistrationNotificationSchema.apply),
        Migration(version: 13, name: "retired API key secrets", apply: RetiredKeySchema.apply),
        Migration(version: 14, name: "default order types", apply: DefaultOrderTypeSchema.apply),
        Migration(version: 15, name: "order defaults per order type", apply: OrderTypeDefaultsSchema.apply),
        Migration(version: 16, name: "dashboard sessions tied to their API key", apply: SessionKeySchema.apply),
        Migration(version: 17, name: "wallet link device tokens", apply: WalletLinkDeviceTokenSchema.apply),
        Migration(version: 18, name: "single-use wallet links", apply: SingleUseLinkSchema.apply),
        Migration(version: 19, name: "carrier connections, events and tracked fulfillments", apply: CarrierSchema.apply),
        Migration(version: 20, name: "merchant events", apply: EventSchema.apply),
        Migration(version: 21, name: "webhook endpoints and deliveries", apply: WebhookSchema.apply),
        Migration(version: 22, name: "insight roll-ups", apply: InsightSchema.apply),
        Migration(version: 23, name: "platform webhook endpoints", apply: PlatformWebhookSchema.apply),
        Migration(version: 24, name: "registrations no longer announced", apply: RegistrationSilenceSchema.apply),
        Migration(version: 25, name: "carrier claims among pending events only", apply: CarrierClaimIndexSchema.apply),
        Migration(version: 26, name: "push fan-outs queued in chunks", apply: PushFanOutSchema.apply),
        Migration(version: 27, name: "repeated package fetches as one activity entry", apply: ActivityOccurrencesSchema.apply),
    ]

    static var latestVersion: Int { all.map(\.version).max() ?? 0 }

    /// Brings the database to ``latestVersion``; refuses a database written by a newer ordertrack.
    static func migrate(_ backend: any SQLStoreBackend, now: @Sendable () -> Date) async throws {
        try await backend.withWriteTransaction(preparing: false) { database in
            if let lock = backend.migrationLock { try await database.raw(lock).run() }
            try await database.create(table: "schema_migrations")
                .ifNotExists()
                .column("version", type: .bigint, .primaryKey(autoIncrement: false))
                .column("name", type: .text, .notNull)
                .column("applied_at", type: .bigint, .notNull)
                .run()
        }
        for migration in all {
            try await backend.withWriteTransaction(preparing: false) { database in
                if let lock = backend.migrationLock { try await database.raw(lock).run() }
                // Re-read inside the write lock: another process may have migrated meanwhile.
                let current = try await currentVersion(database)
                guard current <= latestVersion else {
                    throw OrderStoreError.schemaTooNew(databaseVersion: current, knownVersion: latestVersion)
                }
                guard current < migration.version else { return }
                do {
                    try await migration.apply(database)
                } catch {
                    throw OrderStoreError.migrationFailed(
                        version: migration.version,
                        name: migration.name,
                        reason: backend.describe(error).message
                    )
                }
                try await database.insert(into: "schema_migrations")
                    .columns("version", "name", "applied_at")
                    .values(migration.version, migration.name, now().millisecondsSince1970)
                    .run()
            }
        }
    }

    /// The highest applied migration, 0 for a new database.
    static func currentVersion(_ database: any SQLDatabase) async throws -> Int {
        let highest = SQLFunction("COALESCE", args: SQLFunction("MAX", args: SQLColumn("version")), SQLLiteral.numeric("0"))
        return try await database.select()
            .column(highest, as: "version")
            .from("schema_migrations")
            .first(decodingColumn: "version", as: Int.self) ?? 0
    }
}
