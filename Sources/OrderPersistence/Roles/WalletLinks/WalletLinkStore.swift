import Foundation

/// The links that add an order to Wallet without its authentication token (payment-provider compatibility).
///
/// All methods throw ``OrderStoreError``.
public protocol WalletLinkStore: Sendable {
    /// Stores a new wallet link (its token only as a hash) for an order of the link's merchant.
    func createWalletLink(_ link: WalletLinkRecord) async throws
    /// The wallet link whose token has this SHA-256, expired, revoked or not (the caller judges by its clock).
    func walletLink(tokenHash: String) async throws -> WalletLinkRecord?
    /// The wallet link whose device token has this SHA-256, expired, revoked or not (the caller judges by its clock).
    func walletLink(deviceTokenHash: String) async throws -> WalletLinkRecord?
    /// Gives a link made before links had device tokens its device token's SHA-256; a link that has one keeps it.
    func setWalletLinkDeviceTokenHash(id: String, deviceTokenHash: String) async throws
    /// Uses up a single-use link: `true` for the one caller that used it, `false` when it was used already.
    func useWalletLink(id: String, at date: Date) async throws -> Bool
    /// Revokes one of the merchant's wallet links and deletes the registrations made with its device token; `nil` when
    /// it has no link with that id.
    func revokeWalletLink(merchantID: String, id: String, at date: Date) async throws -> WalletLinkRecord?
}
