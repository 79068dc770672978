import Foundation
import SQLKit
import Synchronization

/// A column that holds a secret, sealed with the master key (``SecretSealer``).
struct SecretColumn: Sendable {
    var table: String
    /// The row's primary key column, part of the seal's authenticated data.
    var keyColumn: String
    var column: String
    /// Whether the column is a BLOB (the sealed text is stored as its UTF-8 bytes) rather than TEXT.
    var isBlob = false

    /// Every secret the store keeps: signing identities (PKCS#12 with its password, or key paths), APNs `.p8` keys,
    /// Apple Pay keys and Merchant Identity PKCS#12s with their passwords, the lookup signing key, carrier webhook secrets,
    /// webhook endpoints' signing secrets.
    static let all: [SecretColumn] = [
        SecretColumn(table: "order_types", keyColumn: "order_type_identifier", column: "identity"),
        SecretColumn(table: "order_types", keyColumn: "order_type_identifier", column: "apns_token"),
        SecretColumn(table: "apple_pay_payment_identities", keyColumn: "id", column: "private_key_pem"),
        SecretColumn(table: "apple_pay_merchant_identities", keyColumn: "merchant_id", column: "pkcs12", isBlob: true),
        SecretColumn(table: "apple_pay_merchant_identities", keyColumn: "merchant_id", column: "password"),
        SecretColumn(table: "lookup_signing_chain", keyColumn: "id", column: "leaf_private_key_pem"),
        SecretColumn(table: "carrier_connections", keyColumn: "id", column: "secret", isBlob: true),
        SecretColumn(table: "webhook_endpoints", keyColumn: "id", column: "secret", isBlob: true),
        SecretColumn(table: "webhook_endpoints", keyColumn: "id", column: "previous_secret", isBlob: true),
        SecretColumn(table: "platform_webhook_endpoints", keyColumn: "id", column: "secret", isBlob: true),
        SecretColumn(table: "platform_webhook_endpoints", keyColumn: "id", column: "previous_secret", isBlob: true),
    ]

    func slot(_ row: String) -> SecretSealer.Slot {
        SecretSealer.Slot(table: table, column: column, row: row)
    }

    /// The stored text of `row`'s value: the column itself, or a BLOB's bytes as text (sealed values are ASCII).
    func stored(in row: any SQLRow) throws -> (text: String, clearBytes: Data)? {
        if try row.decodeNil(column: column) { return nil }
        if isBlob {
            let bytes = try row.decode(column: column, as: Data.self)
            return (String(decoding: bytes, as: UTF8.self), bytes)
        }
        let text = try row.string(column)
        return (text, Data(text.utf8))
    }

    func value(_ sealed: String) -> any Encodable & Sendable {
        isBlob ? Data(sealed.utf8) : sealed
    }
}

extension SQLOrderStore {
    static let masterKeyCheckID = "master"
    static let masterKeyCheckValue = "ordertrack master key check"
    static let masterKeyCheckSlot = SecretSealer.Slot(table: "master_key_check", column: "sealed", row: masterKeyCheckID)

    /// Checks the master key against the database and, the first time a key meets this database, seals the secrets
    /// an older version stored in clear (all in one transaction).
    ///
    /// - Throws: ``OrderStoreError/wrongMasterKey`` when the database's secrets were sealed with another key.
    static func prepareSecrets(_ backend: any SQLStoreBackend, sealer: SecretSealer, now: Date) async throws {
        try await backend.withWriteTransaction { db in
            if let lock = backend.migrationLock { try await db.raw(lock).run() }
            if let check = try await db.select().column("sealed").from("master_key_check").where("id", .equal, masterKeyCheckID).first() {
                guard (try? sealer.openString(try check.string("sealed"), in: masterKeyCheckSlot)) == masterKeyCheckValue else {
                    throw OrderStoreError.wrongMasterKey
                }
                return
            }
            try await rewrap(db, from: nil, to: sealer)
            try await db.insert(into: "master_key_check").columns("id", "sealed", "updated_at")
                .values(masterKeyCheckID, try sealer.seal(masterKeyCheckValue, in: masterKeyCheckSlot), now.millisecondsSince1970)
                .run()
        }
    }

    /// Re-seals every secret with `sealer`; `previous` opens the current values (`nil`: they are in clear, before the
    /// first key).
    static func rewrap(_ db: any SQLDatabase, from previous: SecretSealer?, to sealer: SecretSealer) async throws {
        for secret in SecretColumn.all {
            let rows = try await db.select().column(SQLIdentifier(secret.keyColumn)).column(SQLIdentifier(secret.column)).from(secret.table).all()
            for row in rows {
                let key = try row.string(secret.keyColumn)
                guard let stored = try secret.stored(in: row) else { continue }
                let plaintext: Data
                if let previous {
                    plaintext = try previous.open(stored.text, in: secret.slot(key))
                } else {
                    if SecretSealer.isSealed(stored.text) { continue }
                    plaintext = stored.clearBytes
                }
                try await db.update(secret.table).set(
                    SQLIdentifier(secret.column), to: SQLBind(secret.value(try sealer.seal(plaintext, in: secret.slot(key))))
                )
                .where(SQLIdentifier(secret.keyColumn), .equal, SQLBind(key))
                .run()
            }
        }
    }

    /// Re-seals every secret in the database with `newKey`, in one transaction: either all secrets move to the new
    /// key or none does. Afterwards this store (and every instance restarted with the new key) uses `newKey`;
    /// instances still running with the old key are refused at their next start and must be restarted with the new one.
    ///
    /// - Throws: ``OrderStoreError/wrongMasterKey`` when the store's current key does not open the database's secrets.
    public func rotateMasterKey(to newKey: MasterKey) async throws {
        let current = sealer
        let next = SecretSealer(masterKey: newKey)
        try await write("rotate the master key") { db in
            if let lock = self.backend.migrationLock { try await db.raw(lock).run() }
            let check = try await db.select().column("sealed").from("master_key_check").where("id", .equal, Self.masterKeyCheckID).first()
            guard let check, (try? current.openString(try check.string("sealed"), in: Self.masterKeyCheckSlot)) == Self.masterKeyCheckValue else {
                throw OrderStoreError.wrongMasterKey
            }
            try await Self.rewrap(db, from: current, to: next)
            try await db.update("master_key_check")
                .set("sealed", to: try next.seal(Self.masterKeyCheckValue, in: Self.masterKeyCheckSlot))
                .set("updated_at", to: self.now().millisecondsSince1970)
                .where("id", .equal, Self.masterKeyCheckID)
                .run()
        }
        sealerBox.withLock { $0 = next }
        openedOrderTypes.withLock { _ = $0.removeAll(where: { _ in true }) }
    }

    /// Seals `value` for `column` of the row `key` (see ``SecretColumn/all``).
    func seal(_ value: some DataProtocol, table: String, column: String, key: String) throws -> String {
        try sealer.seal(value, in: SecretSealer.Slot(table: table, column: column, row: key))
    }

    /// Opens the sealed `stored` value of `column` of the row `key`.
    func open(_ stored: String, table: String, column: String, key: String) throws(OrderStoreError) -> Data {
        try sealer.open(stored, in: SecretSealer.Slot(table: table, column: column, row: key))
    }

    /// Seals the text `value` for a BLOB `column` of the row `key`: the sealed text's bytes, as such columns keep it.
    func sealBlob(_ value: String, table: String, column: String, key: String) throws -> Data {
        Data(try seal(Data(value.utf8), table: table, column: column, key: key).utf8)
    }

    /// The text sealed in the BLOB `column` of `row` (whose key is `key`), or `nil` when the column is NULL.
    func openBlobText(_ row: any SQLRow, table: String, column: String, key: String) throws -> String? {
        guard try !row.decodeNil(column: column) else { return nil }
        return String(
            decoding: try open(String(decoding: try row.bytes(column), as: UTF8.self), table: table, column: column, key: key), as: UTF8.self)
    }
}
