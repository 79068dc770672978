import Foundation
import SQLKit

extension SQLOrderStore {
    /// The response stored under a merchant's idempotency key, or `nil` when the key is unused.
    public func idempotentResponse(merchantID: String, key: String) async throws -> IdempotencyRecord? {
        try await read("read idempotent response") { db in
            try await Self.idempotentResponse(db, merchantID: merchantID, key: key)
        }
    }

    /// Deletes idempotent responses created before `date`; returns the number deleted.
    public func deleteIdempotentResponses(createdBefore date: Date) async throws -> Int {
        try await write("delete old idempotent responses") { db in
            try await db.delete(from: "idempotency_keys")
                .where("created_at", .lessThan, date.millisecondsSince1970)
                .returning("idempotency_key")
                .all()
                .count
        }
    }

    /// Stores the claim's response unless its key already holds one, which is returned instead.
    static func claimIdempotencyKey(_ db: any SQLDatabase, _ claim: IdempotencyClaim) async throws -> IdempotencyRecord? {
        let record = claim.record
        let inserted = try await db.insert(into: "idempotency_keys")
            .columns("merchant_id", "idempotency_key", "request_hash", "status", "body", "created_at")
            .values(claim.merchantID, claim.key, record.requestHash, record.status, Data(record.body), record.createdAt.millisecondsSince1970)
            .ignoringConflicts(with: ["merchant_id", "idempotency_key"])
            .returning("idempotency_key")
            .first()
        guard inserted == nil else { return nil }
        guard let existing = try await idempotentResponse(db, merchantID: claim.merchantID, key: claim.key) else {
            throw OrderStoreError.corruptRecord(table: "idempotency_keys", reason: "a conflicting row vanished inside the transaction")
        }
        return existing
    }

    static func idempotentResponse(_ db: any SQLDatabase, merchantID: String, key: String) async throws -> IdempotencyRecord? {
        try await db.select().columns("request_hash", "status", "body", "created_at").from("idempotency_keys")
            .where("merchant_id", .equal, merchantID)
            .where("idempotency_key", .equal, key)
            .first()
            .map {
                IdempotencyRecord(
                    requestHash: try $0.string("request_hash"),
                    status: try $0.int("status"),
                    body: try $0.bytes("body"),
                    createdAt: try $0.date("created_at")
                )
            }
    }
}
