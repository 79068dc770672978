/// A token bucket's shape: `burst` requests at once, refilled at `perSecond`.
public struct RateLimit: Sendable, Equatable {
    /// Tokens added per second (sustained requests per second).
    public var perSecond: Double
    /// The bucket's size: requests allowed at once after a quiet spell.
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }
}

/// The abuse limits in front of every route (see "Limits" in docs/security.md). A `nil` rate turns that limit off.
///
/// The registration cap is kept by the store, so it holds across instances sharing one PostgreSQL database; the rates
/// are token buckets in each instance's memory.
public struct LimitsConfiguration: Sendable, Equatable {
    /// Devices registered for pushes of one order; the next registration is answered 429. Wallet registers each of a
    /// customer's devices once, so a handful is normal.
    public var maximumRegistrationsPerOrder: Int? = 50
    /// Requests of one client address (the TCP peer) to any route.
    public var perClientAddress: RateLimit? = RateLimit(perSecond: 200, burst: 400)
    /// Device requests with one order's `AppleOrder` token (the Wallet web service).
    public var perOrderToken: RateLimit? = RateLimit(perSecond: 20, burst: 100)
    /// Merchant API requests with one API key.
    public var perAPIKey: RateLimit? = RateLimit(perSecond: 200, burst: 1000)
    /// Answers 401 one client address may get before requests with credentials from it are answered 429: a refill of
    /// one failure every 6 seconds, so guessing tokens online runs at 10 guesses a minute.
    public var failedAuthentication: RateLimit? = RateLimit(perSecond: 1.0 / 6, burst: 20)
    /// Requests of one client address to the device log endpoint (`POST /wallet/v1/log`).
    public var deviceLogRequests: RateLimit? = RateLimit(perSecond: 1, burst: 10)
    /// Bytes of device log messages one client address may write to the server log; beyond them entries are dropped
    /// (sampled) and only their count is logged.
    public var deviceLogBytes: RateLimit? = RateLimit(perSecond: 256, burst: 16 * 1024)
    /// Client addresses, tokens and keys whose buckets are kept per limit; the least recently seen are forgotten first.
    public var trackedClients = 100_000
    /// A header in which a reverse proxy in front names the client (`X-Forwarded-For`: its last address, the one the
    /// proxy appended, is taken). Without it the client address is the TCP peer, which behind a load balancer is the
    /// balancer itself. Set it only when every request comes through that proxy: clients can write the header too.
    public var clientAddressHeader: String?

    public init() {}

    /// Every limit off: for benchmarks that drive thousands of requests per second from one address.
    public static var unlimited: LimitsConfiguration {
        var limits = LimitsConfiguration()
        limits.maximumRegistrationsPerOrder = nil
        limits.perClientAddress = nil
        limits.perOrderToken = nil
        limits.perAPIKey = nil
        limits.failedAuthentication = nil
        limits.deviceLogRequests = nil
        limits.deviceLogBytes = nil
        return limits
    }
}
