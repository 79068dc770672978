import SQLKit

/// Schema version 18: single-use Track in Wallet links. Apple asks that nobody download another person's order package
/// even with its URL: a single-use link, minted by the merchant's signed-in page right before it shows the button, opens
/// once and then answers 410.
enum SingleUseLinkSchema {
    @Sendable static func apply(_ db: any SQLDatabase) async throws {
        try await db.alter(table: "wallet_links").column("single_use", type: .bigint, .notNull, .default(0)).run()
        try await db.alter(table: "wallet_links").column("used_at", type: .bigint).run()
    }
}
