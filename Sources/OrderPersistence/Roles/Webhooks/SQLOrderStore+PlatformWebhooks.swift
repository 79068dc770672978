import Foundation
import SQLKit

extension SQLOrderStore {
    static let platformWebhookColumns = "id, url, events, description, secret, previous_secret, previous_secret_until, created_at"

    /// Stores a platform endpoint and a share of it for every merchant; see
    /// ``WebhookStore/addPlatformWebhookEndpoint(_:limit:)``.
    public func addPlatformWebhookEndpoint(_ record: PlatformWebhookEndpointRecord, limit: Int) async throws -> PlatformWebhookEndpointRecord {
        let secret = try sealBlob(record.secret, table: "platform_webhook_endpoints", column: "secret", key: record.id)
        let events = try Self.encodeJSON(record.events, name: "events")
        return try await write("add platform webhook endpoint \(record.id)") { db in
            let count = try await db.raw("SELECT COUNT(*) AS n FROM platform_webhook_endpoints").first(decodingColumn: "n", as: Int.self) ?? 0
            guard count < limit else {
                throw OrderStoreError.invalidArgument(
                    name: "url", reason: "there are \(count) platform webhook endpoints; at most \(limit) are allowed")
            }
            try await db.insert(into: "platform_webhook_endpoints")
                .columns("id", "url", "events", "description", "secret", "created_at")
                .values(record.id, record.url, events, record.description, secret, record.createdAt.millisecondsSince1970)
                .run()
            // Each share starts after its merchant's last event, as a merchant's own new endpoint does.
            let merchants = try await db.raw(
                """
                SELECT m.id AS id, COALESCE(s.last, 0) AS last FROM merchants m
                LEFT JOIN event_sequences s ON s.merchant_id = m.id ORDER BY m.id
                """
            ).all()
            for merchant in merchants {
                try await self.insertPlatformShare(db, of: record, merchantID: try merchant.string("id"), cursor: try merchant.int64("last"))
            }
            var stored = record
            stored.merchants = merchants.count
            stored.disabledMerchants = [:]
            return stored
        }
    }

    /// Gives a new merchant its share of every platform endpoint, in the merchant's creation transaction: the share
    /// starts at the merchant's first event.
    func addPlatformShares(_ db: any SQLDatabase, merchantID: String) async throws {
        for row in try await db.raw("SELECT \(unsafeRaw: Self.platformWebhookColumns) FROM platform_webhook_endpoints").all() {
            try await insertPlatformShare(db, of: try platformWebhookEndpoint(from: row), merchantID: merchantID, cursor: 0)
        }
    }

    /// A merchant's share: an endpoint row of its own, the platform endpoint's secrets sealed again for it.
    private func insertPlatformShare(_ db: any SQLDatabase, of platform: PlatformWebhookEndpointRecord, merchantID: String, cursor: Int64)
        async throws
    {
        CommitMark.current?.enabledWebhookEndpoint.store(true, ordering: .relaxed)
        let id = randomIdentifier(prefix: "we_")
        let secret = try sealBlob(platform.secret, table: "webhook_endpoints", column: "secret", key: id)
        let previous = try platform.previousSecret.map { try sealBlob($0, table: "webhook_endpoints", column: "previous_secret", key: id) }
        try await db.insert(into: "webhook_endpoints")
            .columns(
                "id", "merchant_id", "url", "events", "description", "secret", "previous_secret", "previous_secret_until", "status", "created_at",
                "cursor", "attempts", "claims", "deliveries", "platform_endpoint_id"
            )
            .values(
                SQLBind(id), SQLBind(merchantID), SQLBind(platform.url), SQLBind(try Self.encodeJSON(platform.events, name: "events")),
                SQLBind(platform.description), SQLBind(secret), SQLBind(previous), SQLBind(platform.previousSecretUntil?.millisecondsSince1970),
                SQLBind(WebhookEndpointStatus.enabled.rawValue), SQLBind(platform.createdAt.millisecondsSince1970), SQLBind(cursor), SQLBind(0),
                SQLBind(0), SQLBind(0), SQLBind(platform.id)
            )
            .run()
    }

    /// The platform endpoints, oldest first, with their shares counted.
    public func platformWebhookEndpoints() async throws -> [PlatformWebhookEndpointRecord] {
        try await read("list platform webhook endpoints") { db in
            var records = try await db.raw(
                "SELECT \(unsafeRaw: Self.platformWebhookColumns) FROM platform_webhook_endpoints ORDER BY created_at, id"
            ).all().map { try self.platformWebhookEndpoint(from: $0) }
            for index in records.indices { try await Self.countShares(db, of: &records[index]) }
            return records
        }
    }

    /// One platform endpoint, or `nil`.
    public func platformWebhookEndpoint(id: String) async throws -> PlatformWebhookEndpointRecord? {
        try await read("read platform webhook endpoint \(id)") { db in try await self.platformEndpoint(db, id: id) }
    }

    /// Deletes the platform endpoint; its shares and their logs go by ON DELETE CASCADE.
    public func deletePlatformWebhookEndpoint(id: String) async throws -> Bool {
        try await write("delete platform webhook endpoint \(id)") { db in
            try await db.delete(from: "platform_webhook_endpoints").where("id", .equal, id).returning("id").all().count > 0
        }
    }

    /// Rotates the platform endpoint's secret and every share's in one transaction, so all merchants' deliveries sign
    /// with the same secrets.
    public func rotatePlatformWebhookSecret(id: String, secret: String, previousUntil: Date) async throws -> PlatformWebhookEndpointRecord? {
        try await write("rotate the secret of platform webhook endpoint \(id)") { db in
            guard let current = try await self.platformEndpoint(db, id: id) else { return nil }
            try await db.update("platform_webhook_endpoints")
                .set("secret", to: try self.sealBlob(secret, table: "platform_webhook_endpoints", column: "secret", key: id))
                .set(
                    "previous_secret", to: try self.sealBlob(current.secret, table: "platform_webhook_endpoints", column: "previous_secret", key: id)
                )
                .set("previous_secret_until", to: previousUntil.millisecondsSince1970)
                .where("id", .equal, id).run()
            let shares = try await db.raw("SELECT id FROM webhook_endpoints WHERE platform_endpoint_id = \(bind: id)").all()
            for share in shares {
                let shareID = try share.string("id")
                try await db.update("webhook_endpoints")
                    .set("secret", to: try self.sealBlob(secret, table: "webhook_endpoints", column: "secret", key: shareID))
                    .set(
                        "previous_secret", to: try self.sealBlob(current.secret, table: "webhook_endpoints", column: "previous_secret", key: shareID)
                    )
                    .set("previous_secret_until", to: previousUntil.millisecondsSince1970)
                    .where("id", .equal, shareID).run()
            }
            return try await self.platformEndpoint(db, id: id)
        }
    }

    /// Enables every share and forgets its failures.
    public func enablePlatformWebhookEndpoint(id: String) async throws -> PlatformWebhookEndpointRecord? {
        try await write("enable platform webhook endpoint \(id)") { db in
            try await Self.enablingEndpoints(db).where("platform_endpoint_id", .equal, id).run()
            return try await self.platformEndpoint(db, id: id)
        }
    }

    /// The newest deliveries to the endpoint's shares.
    public func platformWebhookDeliveries(id: String, limit: Int) async throws -> [PlatformWebhookDelivery] {
        guard (1...Self.maximumEventPageSize).contains(limit) else {
            throw OrderStoreError.invalidArgument(name: "limit", reason: "\(limit) is not between 1 and \(Self.maximumEventPageSize)")
        }
        return try await read("list deliveries of platform webhook endpoint \(id)") { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.webhookDeliveryColumns),
                    (SELECT merchant_id FROM webhook_endpoints e WHERE e.id = webhook_deliveries.endpoint_id) AS merchant_id
                FROM webhook_deliveries
                WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE platform_endpoint_id = \(bind: id))
                ORDER BY updated_at DESC, id DESC LIMIT \(bind: limit)
                """
            ).all().map { PlatformWebhookDelivery(merchantID: try $0.string("merchant_id"), delivery: try Self.webhookDelivery(from: $0)) }
        }
    }

    // MARK: Rows

    private func platformEndpoint(_ db: any SQLDatabase, id: String) async throws -> PlatformWebhookEndpointRecord? {
        guard
            let row = try await db.raw("SELECT \(unsafeRaw: Self.platformWebhookColumns) FROM platform_webhook_endpoints WHERE id = \(bind: id)")
                .first()
        else { return nil }
        var record = try platformWebhookEndpoint(from: row)
        try await Self.countShares(db, of: &record)
        return record
    }

    private static func countShares(_ db: any SQLDatabase, of record: inout PlatformWebhookEndpointRecord) async throws {
        let shares = try await db.raw(
            "SELECT merchant_id, status, disabled_reason FROM webhook_endpoints WHERE platform_endpoint_id = \(bind: record.id)"
        ).all()
        record.merchants = shares.count
        record.disabledMerchants = [:]
        for share in shares where try share.string("status") == WebhookEndpointStatus.disabled.rawValue {
            record.disabledMerchants[try share.string("merchant_id")] = try share.optionalString("disabled_reason") ?? "disabled"
        }
    }

    func platformWebhookEndpoint(from row: any SQLRow) throws -> PlatformWebhookEndpointRecord {
        let id = try row.string("id")
        let openSecret = { (column: String) in try self.openBlobText(row, table: "platform_webhook_endpoints", column: column, key: id) }
        guard let secret = try openSecret("secret") else {
            throw OrderStoreError.corruptRecord(table: "platform_webhook_endpoints", reason: "\(id) has no secret")
        }
        return PlatformWebhookEndpointRecord(
            id: id, url: try row.string("url"), events: try Self.endpointEvents(row, table: "platform_webhook_endpoints", id: id),
            description: try row.optionalString("description"), secret: secret,
            previousSecret: try openSecret("previous_secret"),
            previousSecretUntil: try row.decodeNil(column: "previous_secret_until") ? nil : try row.date("previous_secret_until"),
            createdAt: try row.date("created_at"))
    }
}
