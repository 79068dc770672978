/// What a process that keeps copies of the store's rows in memory hears from ``StoreChangeFeed/followChanges(_:)``.
public enum StoreChangeEvent: Sendable, Equatable {
    /// From now on every committed change is delivered; anything copied before may be stale and must be re-read.
    case following
    /// Changes may be missed until the next ``following``: stop trusting copies.
    case interrupted(reason: String)
    /// An order was created, changed or deleted (by any process).
    case order(orderTypeIdentifier: String, orderIdentifier: String)
    /// An order type's configuration (signing identity, APNs credential) was set or removed (by any process).
    case orderType(orderTypeIdentifier: String)
}
