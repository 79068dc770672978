import SQLKit

/// Schema version 26: fan-outs queued in chunks. An order write queues the pushes of its first
/// ``SQLOrderStore/pushFanOutFirstChunk`` devices in its own transaction and records the rest as a `push_fanouts` row
/// (the order and the last push token queued), which the dispatcher expands a chunk per transaction; a 100,000-device
/// order no longer holds its write, and its first pushes, for the whole queue's insert.
///
/// The registrations index by order now ends with the push token, so that each chunk reads the next tokens in order.
enum PushFanOutSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.create(table: "push_fanouts")
            .column("order_type_identifier", type: .text, .notNull)
            .column("order_identifier", type: .text, .notNull)
            .column("after_token", type: .text, .notNull)
            .column("enqueued_at", type: .bigint, .notNull)
            .primaryKey("order_type_identifier", "order_identifier")
            .run()
        try await db.drop(index: "registrations_order").run()
        try await db.create(index: "registrations_order").on("registrations")
            .column("order_type_identifier").column("order_identifier").column("push_token").run()
    }
}
