import SQLKit

/// Schema version 17: a Track in Wallet link hands out a device token of its own, which dies with the link (audit M13).
///
/// The link keeps only the token's SHA-256; links made before this version get it when first opened again. A
/// registration made with a link's token names the link, so revoking the link deletes it, and deleting the link
/// (retention, the order's deletion) takes it along.
enum WalletLinkDeviceTokenSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "wallet_links").column("device_token_hash", type: .text).run()
        // Devices present the token on every call; several links without one (made before this version) may coexist.
        try await db.create(index: "wallet_links_device_token").unique().on("wallet_links").column("device_token_hash").run()
        try await db.alter(table: "registrations")
            .column("wallet_link_id", type: .text, .references("wallet_links", "id", onDelete: .cascade))
            .run()
        // Revoking or deleting a link finds its registrations by this index; most registrations name no link.
        try await db.raw("CREATE INDEX registrations_wallet_link ON registrations (wallet_link_id) WHERE wallet_link_id IS NOT NULL").run()
    }
}
