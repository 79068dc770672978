import Foundation

/// Order lookup (`GET /inApps/v1/lookup/{orderId}`): the per-key rate limit, the storefront written to transactions
/// and the size of the signed-transaction cache.
public struct LookupConfiguration: Sendable {
    /// Lookups one key may make per ``rateLimitWindow``; more are answered 429 with `Retry-After`.
    public var rateLimit: Int = 600
    /// The fixed window the rate limit counts in.
    public var rateLimitWindow: Duration = .seconds(60)
    /// The ISO 3166-1 alpha-3 storefront code written to every transaction.
    public var storefront: String = "USA"
    /// Bytes of signed transactions kept in memory, per order version and bundle id.
    public var cacheBytes: Int = 16 << 20
    /// Verified tokens kept until they expire (a token lives at most an hour), so a token used again is not verified
    /// again; the least recently used go first.
    public var verifiedTokenCapacity: Int = 10_000

    /// The defaults: 600 lookups per key per minute, storefront `USA`, 16 MiB of cache, 10,000 verified tokens.
    public init() {}
}
