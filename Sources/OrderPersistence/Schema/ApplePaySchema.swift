import SQLKit

/// Schema version 3: merchants' Apple Pay identities.
enum ApplePaySchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        // Payment Processing certificates with their keys, several per merchant while it rotates them; tokens name
        // theirs by public key hash.
        try await db.create(table: "apple_pay_payment_identities")
            .column("id", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_id", type: .text, .notNull)
            .column("merchant_identifier", type: .text, .notNull)
            .column("public_key_hash", type: .text, .notNull)
            .column("not_valid_after", type: .bigint, .notNull)
            .column("certificate_pem", type: .text, .notNull)
            .column("private_key_pem", type: .text, .notNull)
            .column("created_at", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
        try await db.create(index: "apple_pay_payment_identities_key").unique().on("apple_pay_payment_identities")
            .column("merchant_id").column("public_key_hash").run()

        // The Merchant Identity certificate (PKCS#12) that authenticates merchant validation; one per merchant.
        try await db.create(table: "apple_pay_merchant_identities")
            .column("merchant_id", type: .text, .primaryKey(autoIncrement: false))
            .column("merchant_identifier", type: .text, .notNull)
            .column("display_name", type: .text, .notNull)
            .column("domains", type: .text, .notNull)
            .column("pkcs12", type: .blob, .notNull)
            .column("password", type: .text, .notNull)
            .column("updated_at", type: .bigint, .notNull)
            .foreignKey(["merchant_id"], references: "merchants", ["id"], onDelete: .cascade)
            .run()
    }
}
