import Foundation
import SQLKit

extension SQLOrderStore {
    /// The response stored under a merchant's idempotency key, or `nil` when the key is unused.
    public func idempotentResponse(merchantID: String, key: String) async throws -> IdempotencyRecord? {
        try await read("read idempotent response") { db in
            try await Self.idempotentResponse(db, merchantID: merchantID, key: key)
        }
    }

    /// Deletes idempotent responses created before `date`, oldest first, at most 5,000 per transaction so that
    /// concurrent writers never wait long; returns the number deleted.
    public func deleteIdempotentResponses(createdBefore date: Date) async throws -> Int {
        try await deleteOldest(
            from: "idempotency_keys", key: ["merchant_id", "idempotency_key"], time: "created_at", order: "created_at", before: date,
            operation: "delete old idempotent responses")
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
