import OrderPersistence

/// The copies of rows this instance keeps in memory that a write can make stale (order records, devices' registration
/// lists), and the one way a change reaches them: ``handle(_:)``, with what the store announces
/// (``StoreChangeFollower``) and with what this instance writes, right after its commit. PostgreSQL announces a commit
/// a moment later; announcing it here first means a client never reads its own write's previous state from this
/// instance.
struct CachedCopies: Sendable {
    let orders: OrderRecordCache
    let registrations: RegistrationsLookup

    func handle(_ event: StoreChangeEvent) {
        orders.handle(event)
        registrations.handle(event)
    }

    /// An order this instance just created or changed: its record is kept or dropped (``OrderRecordCache/remember(_:)``),
    /// and the registration lists with its old change sequence are dropped.
    func orderWritten(_ record: OrderRecord) {
        orders.remember(record)
        registrations.handle(.order(orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier))
    }
}
