import Foundation
import SQLKit

extension SQLOrderStore {
    // MARK: Merchant order defaults

    /// Sets a merchant's order defaults, merchant-wide or for one of its order types, replacing any earlier ones.
    ///
    /// - Throws: ``OrderStoreError/merchantNotFound(id:)`` for a merchant that does not exist,
    ///   ``OrderStoreError/orderTypeNotFound(orderTypeIdentifier:)`` for an order type it does not have.
    public func putOrderDefaults(_ record: MerchantOrderDefaultsRecord) async throws {
        try await write("save order defaults of merchant \(record.merchantID)") { db in
            try await Self.requireMerchant(db, record.merchantID)
            var columns = ["merchant_id", "order_management_url", "fulfillment_type", "payment_status", "updated_at"]
            var values: [any Encodable & Sendable] = [
                record.merchantID, record.orderManagementURL, record.fulfillmentType, record.paymentStatus,
                record.updatedAt.millisecondsSince1970,
            ]
            let table: String
            let key: String
            if let type = record.orderTypeIdentifier {
                let owned = try await db.select().column("order_type_identifier").from("order_types")
                    .where("order_type_identifier", .equal, type).where("merchant_id", .equal, record.merchantID)
                    .first()
                guard owned != nil else { throw OrderStoreError.orderTypeNotFound(orderTypeIdentifier: type) }
                (table, key) = ("order_type_defaults", "order_type_identifier")
                columns.append(key)
                values.append(type)
            } else {
                (table, key) = ("merchant_order_defaults", "merchant_id")
            }
            try await db.insert(into: table)
                .columns(columns)
                .values(values.map { SQLBind($0) })
                .onConflict(with: key) {
                    $0.set(excludedValueOf: "order_management_url").set(excludedValueOf: "fulfillment_type")
                        .set(excludedValueOf: "payment_status").set(excludedValueOf: "updated_at")
                }
                .run()
        }
    }

    /// The merchant-wide order defaults and, with `orderTypeIdentifier`, that order type's (if the merchant owns it):
    /// whichever were ever set, merchant-wide first.
    public func orderDefaults(merchantID: String, orderTypeIdentifier: String?) async throws -> [MerchantOrderDefaultsRecord] {
        // One statement of raw text: read for every update (see ``orderColumnList``).
        let columns = SQLRaw("merchant_id, order_management_url, fulfillment_type, payment_status, updated_at")
        return try await read("read order defaults of merchant \(merchantID)") { db in
            let rows: [any SQLRow]
            if let orderTypeIdentifier {
                rows = try await db.raw(
                    """
                    SELECT 0 AS scope, \(columns) FROM merchant_order_defaults WHERE merchant_id = \(bind: merchantID)
                    UNION ALL
                    SELECT 1 AS scope, \(columns) FROM order_type_defaults
                    WHERE order_type_identifier = \(bind: orderTypeIdentifier) AND merchant_id = \(bind: merchantID)
                    ORDER BY scope
                    """
                ).all()
            } else {
                rows = try await db.raw("SELECT 0 AS scope, \(columns) FROM merchant_order_defaults WHERE merchant_id = \(bind: merchantID)").all()
            }
            return try rows.map { try Self.orderDefaults(from: $0, orderTypeIdentifier: try $0.int("scope") == 0 ? nil : orderTypeIdentifier) }
        }
    }

    static func orderDefaults(from row: any SQLRow, orderTypeIdentifier: String?) throws -> MerchantOrderDefaultsRecord {
        MerchantOrderDefaultsRecord(
            merchantID: try row.string("merchant_id"), orderTypeIdentifier: orderTypeIdentifier,
            orderManagementURL: try row.optionalString("order_management_url"), fulfillmentType: try row.optionalString("fulfillment_type"),
            paymentStatus: try row.optionalString("payment_status"), updatedAt: try row.date("updated_at"))
    }

    /// The orders whose authentication token is `token`: one for tokens OrderTrack made, possibly more for tokens a
    /// merchant chose and reused. At most two are read, enough to tell.
    public func orders(authenticationToken token: String) async throws -> [OrderRecord] {
        try await read("find orders by authentication token") { db in
            try await db.select().columns(Self.orderColumns).from("orders").where("authentication_token", .equal, token).limit(2).all()
                .map(Self.order(from:))
        }
    }

    // MARK: Wallet links

    static let walletLinkColumns = [
        "id", "token_hash", "device_token_hash", "merchant_id", "order_type_identifier", "order_identifier", "created_at", "expires_at",
        "revoked_at", "single_use", "used_at",
    ]

    /// Stores a new wallet link.
    ///
    /// - Throws: ``OrderStoreError/orderNotFound(orderTypeIdentifier:orderIdentifier:)`` when the order does not exist.
    public func createWalletLink(_ link: WalletLinkRecord) async throws {
        try await write("create a wallet link for order \(link.order.orderIdentifier)") { db in
            guard
                try await db.select().column("merchant_id").from("orders")
                    .where("order_type_identifier", .equal, link.order.orderTypeIdentifier)
                    .where("order_identifier", .equal, link.order.orderIdentifier)
                    .first()?.string("merchant_id") == link.merchantID
            else {
                throw OrderStoreError.orderNotFound(orderTypeIdentifier: link.order.orderTypeIdentifier, orderIdentifier: link.order.orderIdentifier)
            }
            try await db.insert(into: "wallet_links")
                .columns(Self.walletLinkColumns)
                .values(
                    link.id, link.tokenHash, link.deviceTokenHash, link.merchantID, link.order.orderTypeIdentifier, link.order.orderIdentifier,
                    link.createdAt.millisecondsSince1970, link.expiresAt.millisecondsSince1970, link.revokedAt?.millisecondsSince1970,
                    link.singleUse ? 1 : 0, link.usedAt?.millisecondsSince1970
                )
                .run()
        }
    }

    /// The wallet link whose token has this SHA-256, expired, revoked or not.
    public func walletLink(tokenHash: String) async throws -> WalletLinkRecord? {
        try await walletLink(where: "token_hash", is: tokenHash)
    }

    /// The wallet link whose device token has this SHA-256, expired, revoked or not.
    public func walletLink(deviceTokenHash: String) async throws -> WalletLinkRecord? {
        try await walletLink(where: "device_token_hash", is: deviceTokenHash)
    }

    private func walletLink(where column: String, is hash: String) async throws -> WalletLinkRecord? {
        try await read("read a wallet link") { db in
            try await db.select().columns(Self.walletLinkColumns).from("wallet_links").where(column, .equal, hash).first()
                .map(Self.walletLink(from:))
        }
    }

    /// Uses up a single-use link at `date`: `true` for the one caller that used it, `false` when it was used already
    /// (two downloads racing get one package).
    public func useWalletLink(id: String, at date: Date) async throws -> Bool {
        try await write("use wallet link \(id)") { db in
            try await db.update("wallet_links").set("used_at", to: date.millisecondsSince1970)
                .where("id", .equal, id).where("single_use", .equal, 1).where("used_at", .is, SQLLiteral.null)
                .returning("id")
                .first() != nil
        }
    }

    /// Gives a link made before links had device tokens the SHA-256 of its device token; a link that has one keeps it.
    public func setWalletLinkDeviceTokenHash(id: String, deviceTokenHash: String) async throws {
        try await write("give wallet link \(id) its device token") { db in
            try await db.update("wallet_links").set("device_token_hash", to: deviceTokenHash)
                .where("id", .equal, id).where("device_token_hash", .is, SQLLiteral.null)
                .run()
        }
    }

    /// Revokes one of the merchant's wallet links at `date` and deletes the registrations made with its device token;
    /// `nil` when the merchant has no link with that id, the link as it is now otherwise (revoking twice keeps the
    /// first date).
    public func revokeWalletLink(merchantID: String, id: String, at date: Date) async throws -> WalletLinkRecord? {
        try await write("revoke wallet link \(id)") { db in
            // The update locks the link's row: a registration through the link waits for it, then finds it revoked.
            try await db.update("wallet_links").set("revoked_at", to: date.millisecondsSince1970)
                .where("id", .equal, id).where("merchant_id", .equal, merchantID).where("revoked_at", .is, SQLLiteral.null)
                .run()
            guard
                let link = try await db.select().columns(Self.walletLinkColumns).from("wallet_links")
                    .where("id", .equal, id).where("merchant_id", .equal, merchantID)
                    .first()
                    .map(Self.walletLink(from:))
            else { return nil }
            let now = self.now()
            let removed = try await deleteRegistrations(db, where: "wallet_link_id = \(bind: id)", at: now)
            try await Self.appendEvents(db, removed.events, at: now, insights: removed.insights)
            return link
        }
    }

    /// Deletes wallet links that expired before `date`, and with them their registrations; returns the number of links
    /// deleted.
    public func deleteWalletLinks(expiredBefore date: Date) async throws -> Int {
        try await write("delete expired wallet links") { db in
            // Their registrations explicitly rather than by the cascade, so that an order they leave without any is reported.
            let now = self.now()
            let expired: SQLQueryString = "wallet_link_id IN (SELECT id FROM wallet_links WHERE expires_at < \(bind: date.millisecondsSince1970))"
            let removed = try await deleteRegistrations(db, where: expired, at: now)
            try await Self.appendEvents(db, removed.events, at: now, insights: removed.insights)
            return try await db.delete(from: "wallet_links").where("expires_at", .lessThan, date.millisecondsSince1970).returning("id").all().count
        }
    }

    /// Deletes the registrations made with the device tokens of links that expired before `date` (the links
    /// themselves stay, to answer "expired"); returns the number deleted.
    public func deleteRegistrations(ofWalletLinksExpiredBefore date: Date) async throws -> Int {
        try await write("delete registrations of expired wallet links") { db in
            let now = self.now()
            let (deleted, events, insights) = try await deleteRegistrations(
                db, where: "wallet_link_id IN (SELECT id FROM wallet_links WHERE expires_at < \(bind: date.millisecondsSince1970))", at: now)
            try await Self.appendEvents(db, events, at: now, insights: insights)
            return deleted
        }
    }

    static func walletLink(from row: any SQLRow) throws -> WalletLinkRecord {
        WalletLinkRecord(
            id: try row.string("id"), tokenHash: try row.string("token_hash"), deviceTokenHash: try row.optionalString("device_token_hash"),
            merchantID: try row.string("merchant_id"),
            order: OrderKey(orderTypeIdentifier: try row.string("order_type_identifier"), orderIdentifier: try row.string("order_identifier")),
            createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"),
            revokedAt: try row.decodeNil(column: "revoked_at") ? nil : try row.date("revoked_at"),
            singleUse: try row.decode(column: "single_use", as: Int.self) != 0,
            usedAt: try row.decodeNil(column: "used_at") ? nil : try row.date("used_at"))
    }
}
