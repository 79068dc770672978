import Foundation
import SQLKit

extension SQLOrderStore {
    static let webhookEndpointColumns = """
        id, merchant_id, url, events, description, secret, previous_secret, previous_secret_until, status, disabled_reason, created_at, \
        cursor, attempts, failing_since, next_attempt_at, claims, platform_endpoint_id
        """
    static let webhookDeliveryColumns = """
        id, endpoint_id, number, event_id, event_type, resend_of, status, attempts, response_status, latency_ms, error, created_at, updated_at
        """

    /// Stores a new endpoint whose cursor is the merchant's last event: it is sent the events written after it.
    ///
    /// - Throws: ``OrderStoreError/merchantNotFound(id:)``, ``OrderStoreError/invalidArgument(name:reason:)`` at the limit.
    public func addWebhookEndpoint(_ record: WebhookEndpointRecord, limit: Int) async throws -> WebhookEndpointRecord {
        let secret = try sealBlob(record.secret, table: "webhook_endpoints", column: "secret", key: record.id)
        let events = try Self.encodeJSON(record.events, name: "events")
        return try await write("add webhook endpoint \(record.id) for merchant \(record.merchantID)") { db in
            try await Self.requireMerchant(db, record.merchantID)
            let count =
                try await db.raw(
                    "SELECT COUNT(*) AS n FROM webhook_endpoints WHERE merchant_id = \(bind: record.merchantID) AND platform_endpoint_id IS NULL"
                )
                .first(decodingColumn: "n", as: Int.self) ?? 0
            guard count < limit else {
                throw OrderStoreError.invalidArgument(
                    name: "url", reason: "the merchant has \(count) webhook endpoints; at most \(limit) are allowed")
            }
            let last =
                try await db.select().column("last").from("event_sequences").where("merchant_id", .equal, record.merchantID)
                .first(decodingColumn: "last", as: Int64.self) ?? 0
            try await db.insert(into: "webhook_endpoints")
                .columns(
                    "id", "merchant_id", "url", "events", "description", "secret", "status", "created_at", "cursor", "attempts", "claims",
                    "deliveries"
                )
                .values(
                    record.id, record.merchantID, record.url, events, record.description, secret, WebhookEndpointStatus.enabled.rawValue,
                    record.createdAt.millisecondsSince1970, last, 0, 0, 0
                )
                .run()
            CommitMark.current?.enabledWebhookEndpoint.store(true, ordering: .relaxed)
            var stored = record
            stored.cursor = last
            stored.status = .enabled
            return stored
        }
    }

    /// The merchant's own endpoints, oldest first.
    public func webhookEndpoints(merchantID: String) async throws -> [WebhookEndpointRecord] {
        try await read("list webhook endpoints of merchant \(merchantID)") { db in
            try await db.raw(
                """
                SELECT \(unsafeRaw: Self.webhookEndpointColumns) FROM webhook_endpoints
                WHERE merchant_id = \(bind: merchantID) AND platform_endpoint_id IS NULL ORDER BY created_at, id
                """
            ).all().map { try self.webhookEndpoint(from: $0) }
        }
    }

    /// One of the merchant's endpoints, or `nil`.
    public func webhookEndpoint(id: String, merchantID: String) async throws -> WebhookEndpointRecord? {
        try await read("read webhook endpoint \(id)") { db in
            try await Self.endpointRow(db, id: id, merchantID: merchantID).map { try self.webhookEndpoint(from: $0) }
        }
    }

    /// Deletes one of the merchant's endpoints, and its log by ON DELETE CASCADE.
    public func deleteWebhookEndpoint(id: String, merchantID: String) async throws -> Bool {
        try await write("delete webhook endpoint \(id)") { db in
            try await db.delete(from: "webhook_endpoints").where("merchant_id", .equal, merchantID).where("id", .equal, id)
                .where("platform_endpoint_id", .is, SQLLiteral.null).returning("id").all().count > 0
        }
    }

    /// Seals the new secret and keeps the current one as the previous, signing until `previousUntil`.
    public func rotateWebhookSecret(id: String, merchantID: String, secret: String, previousUntil: Date) async throws -> WebhookEndpointRecord? {
        let sealed = try sealBlob(secret, table: "webhook_endpoints", column: "secret", key: id)
        return try await write("rotate the secret of webhook endpoint \(id)") { db in
            guard let row = try await Self.endpointRow(db, id: id, merchantID: merchantID) else { return nil }
            let current = try self.webhookEndpoint(from: row)
            // The current secret moves to the previous slot, sealed again for that column.
            let previous = try self.sealBlob(current.secret, table: "webhook_endpoints", column: "previous_secret", key: id)
            try await db.update("webhook_endpoints").set("secret", to: sealed).set("previous_secret", to: previous)
                .set("previous_secret_until", to: previousUntil.millisecondsSince1970)
                .where("id", .equal, id).run()
            return try await Self.endpointRow(db, id: id, merchantID: merchantID).map { try self.webhookEndpoint(from: $0) }
        }
    }

    /// Enables the endpoint and forgets its failures.
    public func enableWebhookEndpoint(id: String, merchantID: String) async throws -> WebhookEndpointRecord? {
        try await write("enable webhook endpoint \(id)") { db in
            try await Self.enablingEndpoints(db)
                .where("id", .equal, id).where("merchant_id", .equal, merchantID).where("platform_endpoint_id", .is, SQLLiteral.null).run()
            return try await Self.endpointRow(db, id: id, merchantID: merchantID).map { try self.webhookEndpoint(from: $0) }
        }
    }

    // MARK: The worker

    /// Claims due endpoints in one statement, as push claims are made; on PostgreSQL endpoints another instance is
    /// claiming are skipped, not waited for.
    public func claimWebhookEndpoints(limit: Int, leaseDuration: TimeInterval) async throws -> [WebhookClaim] {
        let now = self.now().millisecondsSince1970
        let until = self.now().addingTimeInterval(leaseDuration).millisecondsSince1970
        // An endpoint is due when its merchant's sequence passed its cursor: the merchant's one sequence row tells so.
        let due: SQLQueryString = """
            status = 'enabled' AND (claimed_until IS NULL OR claimed_until <= \(bind: now))
            AND (next_attempt_at IS NULL OR next_attempt_at <= \(bind: now))
            AND cursor < (SELECT last FROM event_sequences WHERE event_sequences.merchant_id = webhook_endpoints.merchant_id)
            """
        // Most wake-ups find nothing due: a read tells so without queueing for SQLite's one writer, and whether any
        // endpoint is enabled at all (none: commits stop waking the worker).
        let mark = webhookEndpoints.mark
        let look = try await read("look for due webhook endpoints") { db in
            try await db.raw(
                """
                SELECT CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints WHERE \(due)) THEN 1 ELSE 0 END AS due, \
                CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints WHERE status = 'enabled') THEN 1 ELSE 0 END AS enabled
                """
            ).first()
        }
        webhookEndpoints.looked(found: try look?.decode(column: "enabled", as: Int.self) == 1, since: mark)
        guard try look?.decode(column: "due", as: Int.self) == 1 else { return [] }
        return try await writeStatement("claim webhook endpoints") { db in
            try await db.raw(
                """
                UPDATE webhook_endpoints SET claimed_until = \(bind: until), claims = claims + 1
                WHERE id IN (SELECT id FROM webhook_endpoints WHERE \(due) ORDER BY next_attempt_at, id LIMIT \(bind: limit)\(unsafeRaw: backend.skipLockedClause))
                RETURNING \(unsafeRaw: Self.webhookEndpointColumns)
                """
            ).all().map { WebhookClaim(endpoint: try self.webhookEndpoint(from: $0), claim: try $0.int64("claims")) }
        }
    }

    /// The merchant's events after a sequence, oldest first: one range of `events_merchant_sequence`.
    public func events(merchantID: String, afterSequence sequence: Int64, limit: Int) async throws -> [EventRecord] {
        try await read("read events of merchant \(merchantID) after \(sequence)") { db in
            try await db.select().columns(Self.eventColumns).from("events").where("merchant_id", .equal, merchantID)
                .where("sequence", .greaterThan, sequence).orderBy("sequence").limit(limit).all().map(Self.event(from:))
        }
    }

    /// Records a step under a claim; see ``WebhookStore/finishWebhookStep(endpointID:claim:_:leaseDuration:)``.
    public func finishWebhookStep(endpointID: String, claim: Int64, _ step: WebhookStep, leaseDuration: TimeInterval?) async throws -> Bool {
        let now = self.now()
        let lease: any SQLExpression =
            if let leaseDuration { SQLBind(now.addingTimeInterval(leaseDuration).millisecondsSince1970) } else { SQLLiteral.null }
        return try await write("finish a webhook step of endpoint \(endpointID)") { db in
            let held = try await db.raw(
                "SELECT id FROM webhook_endpoints WHERE id = \(bind: endpointID) AND claims = \(bind: claim) AND claimed_until IS NOT NULL\(unsafeRaw: backend.rowLockClause)"
            ).first()
            guard held != nil else { return false }
            let update = db.update("webhook_endpoints").set("claimed_until", to: lease).where("id", .equal, endpointID)
            switch step {
            case .skipped(let sequence):
                update.set("cursor", to: sequence)
            case .succeeded(let sequence, let result):
                try await Self.logAttempt(db, endpointID: endpointID, result, status: .succeeded, now: now)
                update.set("cursor", to: sequence).set("attempts", to: 0).set("failing_since", to: SQLLiteral.null)
                    .set("next_attempt_at", to: SQLLiteral.null)
            case .failed(let result, let retryAt, let reason):
                try await Self.logAttempt(db, endpointID: endpointID, result, status: retryAt == nil ? .failed : .pending, now: now)
                update.set(SQLIdentifier("attempts"), to: SQLRaw("attempts + 1"))
                    .set("failing_since", to: SQLFunction("COALESCE", args: SQLColumn("failing_since"), SQLBind(now.millisecondsSince1970)))
                if let retryAt {
                    update.set("next_attempt_at", to: retryAt.millisecondsSince1970)
                } else {
                    update.set("status", to: WebhookEndpointStatus.disabled.rawValue).set("disabled_reason", to: reason)
                        .set("next_attempt_at", to: SQLLiteral.null)
                }
            }
            try await update.run()
            return true
        }
    }

    /// Counts an attempt on the endpoint's delivery of the event, the row made at the first attempt.
    private static func logAttempt(
        _ db: any SQLDatabase, endpointID: String, _ result: WebhookAttemptResult, status: WebhookDeliveryStatus, now: Date
    )
        async throws
    {
        let existing = try await db.raw(
            "SELECT id FROM webhook_deliveries WHERE endpoint_id = \(bind: endpointID) AND event_id = \(bind: result.eventID) AND resend_of IS NULL"
        ).first(decodingColumn: "id", as: String.self)
        if let existing {
            try await db.update("webhook_deliveries").set("status", to: status.rawValue).set(SQLIdentifier("attempts"), to: SQLRaw("attempts + 1"))
                .set("response_status", to: result.responseStatus).set("latency_ms", to: result.latencyMilliseconds).set("error", to: result.error)
                .set("updated_at", to: now.millisecondsSince1970)
                .where("id", .equal, existing).run()
        } else {
            try await insertDelivery(db, endpointID: endpointID, result, status: status, resendOf: nil, now: now)
        }
    }

    @discardableResult
    private static func insertDelivery(
        _ db: any SQLDatabase, endpointID: String, _ result: WebhookAttemptResult, status: WebhookDeliveryStatus, resendOf: String?, now: Date
    ) async throws -> WebhookDeliveryRecord {
        // The endpoint's row numbers its log; its lock (PostgreSQL) keeps two numbers from colliding.
        let number = try await db.raw(
            "UPDATE webhook_endpoints SET deliveries = deliveries + 1 WHERE id = \(bind: endpointID) RETURNING deliveries"
        ).first(decodingColumn: "deliveries", as: Int64.self)
        guard let number else { throw OrderStoreError.corruptRecord(table: "webhook_endpoints", reason: "no endpoint \(endpointID)") }
        let record = WebhookDeliveryRecord(
            id: randomIdentifier(prefix: "whd_"), endpointID: endpointID, number: number, eventID: result.eventID,
            eventType: result.eventType.rawValue,
            resendOf: resendOf, status: status, attempts: 1, responseStatus: result.responseStatus, latencyMilliseconds: result.latencyMilliseconds,
            error: result.error, createdAt: now, updatedAt: now)
        try await db.insert(into: "webhook_deliveries")
            .columns(
                "id", "endpoint_id", "number", "event_id", "event_type", "resend_of", "status", "attempts", "response_status", "latency_ms", "error",
                "created_at", "updated_at"
            )
            .values(
                record.id, endpointID, number, record.eventID, record.eventType, resendOf, status.rawValue, 1, result.responseStatus,
                result.latencyMilliseconds, result.error, now.millisecondsSince1970, now.millisecondsSince1970
            )
            .run()
        return record
    }

    /// Frees every claim; see ``WebhookStore/releaseWebhookLeases()``.
    public func releaseWebhookLeases() async throws {
        try await writeStatement("release webhook endpoint leases") { db in
            try await db.raw("UPDATE webhook_endpoints SET claimed_until = NULL WHERE claimed_until IS NOT NULL").run()
        }
    }

    // MARK: The delivery log

    /// The endpoint's delivery log, newest first; see ``WebhookStore/webhookDeliveries(endpointID:after:limit:)``.
    public func webhookDeliveries(endpointID: String, after cursor: String?, limit: Int) async throws -> WebhookDeliveryPage {
        guard (1...Self.maximumEventPageSize).contains(limit) else {
            throw OrderStoreError.invalidArgument(name: "limit", reason: "\(limit) is not between 1 and \(Self.maximumEventPageSize)")
        }
        let before = try cursor.map(ListCursor.webhookDeliveries.decode)
        return try await read("list deliveries of webhook endpoint \(endpointID)") { db in
            let rows = try await db.raw(
                """
                SELECT \(unsafeRaw: Self.webhookDeliveryColumns) FROM webhook_deliveries
                WHERE endpoint_id = \(bind: endpointID) AND number < \(bind: before ?? Int64.max)
                ORDER BY number DESC LIMIT \(bind: limit + 1)
                """
            ).all()
            let deliveries = try rows.prefix(limit).map(Self.webhookDelivery(from:))
            return WebhookDeliveryPage(
                deliveries: deliveries, nextCursor: rows.count > limit ? deliveries.last.map { ListCursor.webhookDeliveries.encode($0.number) } : nil)
        }
    }

    /// One delivery of the endpoint, or `nil`.
    public func webhookDelivery(id: String, endpointID: String) async throws -> WebhookDeliveryRecord? {
        try await read("read webhook delivery \(id)") { db in
            try await db.raw(
                "SELECT \(unsafeRaw: Self.webhookDeliveryColumns) FROM webhook_deliveries WHERE id = \(bind: id) AND endpoint_id = \(bind: endpointID)"
            ).first().map(Self.webhookDelivery(from:))
        }
    }

    /// Logs a resend as a new delivery; see ``WebhookStore/logWebhookResend(of:_:)``.
    public func logWebhookResend(of delivery: WebhookDeliveryRecord, _ result: WebhookAttemptResult) async throws -> WebhookDeliveryRecord {
        let now = self.now()
        return try await write("log a resend of webhook delivery \(delivery.id)") { db in
            try await Self.insertDelivery(
                db, endpointID: delivery.endpointID, result, status: result.error == nil ? .succeeded : .failed, resendOf: delivery.id, now: now)
        }
    }

    /// An update of `webhook_endpoints` that enables the rows it is narrowed to and forgets their failures.
    static func enablingEndpoints(_ db: any SQLDatabase) -> SQLUpdateBuilder {
        CommitMark.current?.enabledWebhookEndpoint.store(true, ordering: .relaxed)
        return db.update("webhook_endpoints").set("status", to: WebhookEndpointStatus.enabled.rawValue)
            .set("disabled_reason", to: SQLLiteral.null).set("attempts", to: 0).set("failing_since", to: SQLLiteral.null)
            .set("next_attempt_at", to: SQLLiteral.null)
    }

    // MARK: Rows

    /// An endpoint row's event types (a JSON array).
    static func endpointEvents(_ row: any SQLRow, table: String, id: String) throws -> [String] {
        do {
            return try JSONDecoder().decode([String].self, from: Data(try row.string("events").utf8))
        } catch {
            throw OrderStoreError.corruptRecord(table: table, reason: "events of \(id): \(error)")
        }
    }

    /// One of the merchant's own endpoints: its shares of a platform's endpoints are the platform's to manage.
    private static func endpointRow(_ db: any SQLDatabase, id: String, merchantID: String) async throws -> (any SQLRow)? {
        try await db.raw(
            """
            SELECT \(unsafeRaw: webhookEndpointColumns) FROM webhook_endpoints
            WHERE id = \(bind: id) AND merchant_id = \(bind: merchantID) AND platform_endpoint_id IS NULL
            """
        ).first()
    }

    func webhookEndpoint(from row: any SQLRow) throws -> WebhookEndpointRecord {
        let id = try row.string("id")
        let openSecret = { (column: String) in try self.openBlobText(row, table: "webhook_endpoints", column: column, key: id) }
        guard let secret = try openSecret("secret") else {
            throw OrderStoreError.corruptRecord(table: "webhook_endpoints", reason: "\(id) has no secret")
        }
        let status = try row.string("status")
        guard let known = WebhookEndpointStatus(rawValue: status) else {
            throw OrderStoreError.corruptRecord(table: "webhook_endpoints", reason: "unknown status '\(status)'")
        }
        let events = try Self.endpointEvents(row, table: "webhook_endpoints", id: id)
        let optionalDate = { (column: String) throws -> Date? in try row.decodeNil(column: column) ? nil : try row.date(column) }
        return WebhookEndpointRecord(
            id: id, merchantID: try row.string("merchant_id"), url: try row.string("url"), events: events,
            description: try row.optionalString("description"), secret: secret, previousSecret: try openSecret("previous_secret"),
            previousSecretUntil: try optionalDate("previous_secret_until"), status: known, disabledReason: try row.optionalString("disabled_reason"),
            createdAt: try row.date("created_at"), cursor: try row.int64("cursor"), attempts: try row.int("attempts"),
            failingSince: try optionalDate("failing_since"), nextAttemptAt: try optionalDate("next_attempt_at"),
            platformEndpointID: try row.optionalString("platform_endpoint_id"))
    }

    static func webhookDelivery(from row: any SQLRow) throws -> WebhookDeliveryRecord {
        let status = try row.string("status")
        guard let known = WebhookDeliveryStatus(rawValue: status) else {
            throw OrderStoreError.corruptRecord(table: "webhook_deliveries", reason: "unknown status '\(status)'")
        }
        let optionalInt = { (column: String) throws -> Int? in try row.decodeNil(column: column) ? nil : try row.int(column) }
        return WebhookDeliveryRecord(
            id: try row.string("id"), endpointID: try row.string("endpoint_id"), number: try row.int64("number"), eventID: try row.string("event_id"),
            eventType: try row.string("event_type"), resendOf: try row.optionalString("resend_of"), status: known, attempts: try row.int("attempts"),
            responseStatus: try optionalInt("response_status"), latencyMilliseconds: try optionalInt("latency_ms"),
            error: try row.optionalString("error"),
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"))
    }
}
