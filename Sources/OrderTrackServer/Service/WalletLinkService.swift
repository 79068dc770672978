import Foundation
import OrderPersistence

/// "Track in Wallet" links: a URL that hands an order's current signed package to whoever holds it, so a customer can
/// add the order to Wallet from a checkout page, an e-mail or an app.
///
/// The URL's token is 192 random bits, stored only as its SHA-256. The package it serves carries a device token of the
/// link's own (``Secrets/walletLinkDeviceToken(linkToken:)``), never the order's authenticationToken: the device
/// endpoints accept it for the link's order while the link lives. A link that leaks therefore opens the order until it
/// expires or is revoked; after that neither its URL nor the token its packages carried fetches or registers anything,
/// and the registrations made with that token are deleted (audit M13).
package struct WalletLinkService: Sendable {
    /// How long a link works unless the merchant asks otherwise.
    static let defaultLifetime: TimeInterval = 7 * 24 * 3600
    /// The longest lifetime a merchant may ask for.
    static let maximumLifetime: TimeInterval = 90 * 24 * 3600
    /// How long a single-use link works unless asked otherwise: minted right before the button shows, it is used in
    /// seconds.
    static let defaultSingleUseLifetime: TimeInterval = 600
    /// The longest a single-use link may live: it is for the page the customer is looking at, not for e-mails.
    static let maximumSingleUseLifetime: TimeInterval = 3600
    /// Where links live under the public URL.
    static let pathPrefix = "/track/"

    let store: any WalletLinkStore & OrderRecordStore
    let orders: OrderService
    /// The public base URL links are made on.
    let publicURL: String
    let now: @Sendable () -> Date

    /// A new link and its URL (shown once: only the token's hash is kept).
    struct CreatedLink: Sendable {
        var record: WalletLinkRecord
        var url: String
    }

    /// A link that opens its order now: the order, and the device token the link's packages carry (none for a
    /// single-use link, whose one download is the customer's own: it carries the order's token, as Apple Pay's
    /// orderDetails do, so the order stays current after the link is gone).
    struct OpenedLink: Sendable {
        var record: WalletLinkRecord
        var order: OrderRecord
        var device: WalletLinkDevice?
    }

    /// Why a link opens nothing.
    enum Refusal: Error, Sendable {
        /// No link has this token.
        case unknown
        /// The link expired at this date.
        case expired(Date)
        /// The merchant revoked the link at this date.
        case revoked(Date)
        /// The single-use link was used at this date.
        case used(Date)
    }

    /// Makes a link to one of the merchant's orders, valid for `lifetime` seconds: by default 7 days, at most 90; a
    /// `singleUse` link 10 minutes by default, at most an hour, and opens once.
    func create(merchant: MerchantRecord, type: String, id: String, lifetime: TimeInterval?, singleUse: Bool = false) async throws
        -> CreatedLink
    {
        let lifetime = lifetime ?? (singleUse ? Self.defaultSingleUseLifetime : Self.defaultLifetime)
        let maximum = singleUse ? Self.maximumSingleUseLifetime : Self.maximumLifetime
        guard lifetime >= 60, lifetime <= maximum else {
            let limit = singleUse ? "\(Int(maximum)) seconds (an hour) for a single-use link" : "\(Int(maximum)) seconds (90 days)"
            throw OrderTrackError(
                .invalidWalletLink, "expiresIn must be from 60 to \(limit), not \(lifetime.formatted(.number.grouping(.never)))",
                field: "expiresIn")
        }
        _ = try await orders.order(merchant: merchant, type: type, id: id)
        let token = Secrets.randomToken(bytes: 24)
        let created = now()
        let record = WalletLinkRecord(
            id: UUID().uuidString.lowercased(), tokenHash: Secrets.sha256Hex(Array(token.utf8)),
            deviceTokenHash: singleUse ? nil : Self.hash(deviceToken: Secrets.walletLinkDeviceToken(linkToken: token)), merchantID: merchant.id,
            order: OrderKey(orderTypeIdentifier: type, orderIdentifier: id), createdAt: created, expiresAt: created.addingTimeInterval(lifetime),
            singleUse: singleUse)
        do {
            try await store.createWalletLink(record)
        } catch OrderStoreError.orderNotFound {
            throw OrderTrackError(.notFound, "no order \(id) of type \(type)")
        }
        return CreatedLink(record: record, url: publicURL + Self.pathPrefix + token)
    }

    /// Revokes one of the merchant's links, and with it the registrations made with its device token; revoking twice
    /// keeps the first date.
    func revoke(merchant: MerchantRecord, id: String) async throws -> WalletLinkRecord {
        guard let record = try await store.revokeWalletLink(merchantID: merchant.id, id: id, at: now()) else {
            throw OrderTrackError(.notFound, "no wallet link \(id)")
        }
        return record
    }

    /// The order a link's token opens now and the device token its package carries, or why it opens nothing.
    func resolve(token: String) async throws -> Result<OpenedLink, Refusal> {
        guard let record = try await store.walletLink(tokenHash: Secrets.sha256Hex(Array(token.utf8))) else { return .failure(.unknown) }
        if let revokedAt = record.revokedAt { return .failure(.revoked(revokedAt)) }
        if let usedAt = record.usedAt { return .failure(.used(usedAt)) }
        guard record.expiresAt > now() else { return .failure(.expired(record.expiresAt)) }
        // Deleting the order deletes its links; one deleted a moment ago is as unknown as a token never issued.
        guard let order = try await store.order(type: record.order.orderTypeIdentifier, id: record.order.orderIdentifier) else {
            return .failure(.unknown)
        }
        if record.singleUse { return .success(OpenedLink(record: record, order: order, device: nil)) }
        let deviceToken = Secrets.walletLinkDeviceToken(linkToken: token)
        // A link made before links had device tokens gets its own now: only its URL token can make it.
        if record.deviceTokenHash == nil {
            try await store.setWalletLinkDeviceTokenHash(id: record.id, deviceTokenHash: Self.hash(deviceToken: deviceToken))
        }
        return .success(OpenedLink(record: record, order: order, device: WalletLinkDevice(linkID: record.id, token: deviceToken)))
    }

    /// Uses up a single-use link once its package is ready; `false` when another download used it first.
    func use(_ link: WalletLinkRecord) async throws -> Bool {
        guard link.singleUse else { return true }
        return try await store.useWalletLink(id: link.id, at: now())
    }

    /// The unrevoked, unexpired link whose device token this is; `nil` for any other token.
    ///
    /// The link is found by the token's SHA-256, as API keys and link URLs are: what the lookup's timing could reveal
    /// is about a hash, which tells nothing of any token.
    func liveLink(deviceToken: String) async throws -> WalletLinkRecord? {
        guard let record = try await store.walletLink(deviceTokenHash: Self.hash(deviceToken: deviceToken)), record.revokedAt == nil,
            record.expiresAt > now()
        else { return nil }
        return record
    }

    private static func hash(deviceToken: String) -> String {
        Secrets.sha256Hex(Array(deviceToken.utf8))
    }
}

/// A wallet link's device token and the link it belongs to: what the link's packages carry in place of the order's
/// authenticationToken, and what a device presents for the order while the link lives.
struct WalletLinkDevice: Sendable, Hashable {
    var linkID: String
    var token: String
}
