import Foundation
import SQLKit

extension SQLOrderStore {
    /// Inserts ``BenchmarkSeed`` data in batches of `seed.batchSize` rows, one transaction per batch.
    /// Orders get version 1 and consecutive change sequences. Fails on identifiers that already exist.
    public func seedForBenchmark(_ seed: BenchmarkSeed) async throws {
        try seed.validate()
        let now = Self.now().millisecondsSince1970
        let document = Data(seed.document)
        for start in stride(from: 0, to: seed.orderCount, by: seed.batchSize) {
            let end = min(start + seed.batchSize, seed.orderCount)
            try await write("seed benchmark orders \(start)..<\(end)") { db in
                try await Self.requireOrderType(db, seed.orderTypeIdentifier, ownedBy: seed.merchantID)
                let count = Int64(end - start)
                // Row i gets sequence offset + i, consecutive after the counter's previous value.
                let offset = try await nextChangeSequence(db, count: count) - count + 1 - Int64(start)
                try await db.raw(
                    """
                    WITH RECURSIVE seq(i) AS (SELECT \(bind: start) UNION ALL SELECT i + 1 FROM seq WHERE i < \(bind: end - 1)) \
                    INSERT INTO orders (\(idents: Self.orderColumns, joinedBy: ", ")) \
                    SELECT \(bind: seed.orderTypeIdentifier), \(bind: seed.orderIdentifierPrefix) || i, \(bind: seed.merchantID), \
                    \(bind: seed.authenticationTokenPrefix) || i, \(bind: document), \(bind: seed.status), \(bind: now), \(bind: now), \
                    1, \(bind: offset) + i, \(bind: offset) + i FROM seq
                    """
                ).run()
            }
        }
        for start in stride(from: 0, to: seed.registrationCount, by: seed.batchSize) {
            let end = min(start + seed.batchSize, seed.registrationCount)
            try await write("seed benchmark registrations \(start)..<\(end)") { db in
                try await db.raw(
                    """
                    WITH RECURSIVE seq(i) AS (SELECT \(bind: start) UNION ALL SELECT i + 1 FROM seq WHERE i < \(bind: end - 1)) \
                    INSERT INTO registrations \
                    (device_library_identifier, order_type_identifier, order_identifier, push_token, registered_at) \
                    SELECT \(bind: seed.deviceIdentifierPrefix) || (i / \(bind: seed.ordersPerDevice)), \(bind: seed.orderTypeIdentifier), \
                    \(bind: seed.orderIdentifierPrefix) || (i % \(bind: seed.orderCount)), \
                    \(bind: seed.pushTokenPrefix) || (i / \(bind: seed.ordersPerDevice)), \(bind: now) FROM seq
                    """
                ).run()
            }
        }
    }
}
