import Foundation

/// Carrier tracking webhooks: where ShipEngine connections may fetch their signing keys from, and for how long
/// connections and keys are kept in memory.
public struct CarrierConfiguration: Sendable {
    /// ShipEngine's own key set, the one a connection uses unless it names another.
    public static let defaultJWKSURL = URL(string: "https://api.shipengine.com/jwks")!

    /// The hosts a connection's `jwksURL` may name (https only). The server fetches that URL itself, so an open choice
    /// would let any merchant make it request an arbitrary address (server-side request forgery); the default allows
    /// only ShipEngine's API host.
    public var jwksHosts: Set<String> = ["api.shipengine.com"]
    /// How long a fetched key set is used before it is fetched again.
    public var keySetLifetime: Duration = .seconds(3_600)
    /// The least time between two fetches of one key set: a signature naming a key the set lacks fetches it again at
    /// most this often, so invented key ids cannot make the server fetch on every request.
    public var keySetRefetchInterval: Duration = .seconds(60)
    /// How long a fetched key set may take, from connecting to the last byte.
    public var keySetTimeout: Duration = .seconds(10)
    /// How long this instance keeps a connection in memory: a connection deleted on another instance (or with the
    /// command line) stops being accepted here within this time. A deletion through this instance's API is at once.
    public var connectionCacheLifetime: Duration = .seconds(30)
    /// How many connections this instance keeps in memory.
    public var connectionCacheCapacity = 10_000
    /// Where key sets come from: HTTPS with the server's outbound client unless a test serves them from memory.
    package var keySetFetcher: (any KeySetFetcher)?
    /// Events the worker claims at once.
    public var batchSize = 64
    /// Batches applied at once: the next is claimed while earlier ones still wait for the database.
    public var batchesInFlight = 4
    /// Parcels of a batch applied at once; one parcel's events apply one after another, in scan order.
    public var concurrency = 16
    /// How long a claim on events lasts; the events of an instance that died are applied by another after it.
    public var leaseDuration: TimeInterval = 60
    /// Longest sleep between inbox checks when nobody signals new events (other instances' webhooks, requeued events).
    public var pollInterval: Duration = .seconds(1)
    /// Claims before an event that keeps failing for reasons outside it (the database) is given up as failed.
    public var maximumAttempts = 5
    /// Whether this instance applies events; off only in `ordertrack bench carrier --no-worker`, which measures the
    /// webhook without the worker competing for the database.
    package var appliesEvents = true

    /// The defaults: ShipEngine's host only, keys kept an hour and refetched at most once a minute, connections kept
    /// 30 seconds; events claimed 64 at a time for a minute, up to 4 batches and 16 parcels of each at once, the inbox
    /// checked every second.
    public init() {}
}
