/// Every failure of an ``OrderStore``, with a message saying what went wrong and what to do.
public enum OrderStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No merchant has this id.
    case merchantNotFound(id: String)
    /// An API key with the same hash is already stored.
    case apiKeyAlreadyExists(prefix: String)
    /// No order type has this identifier.
    case orderTypeNotFound(orderTypeIdentifier: String)
    /// The order type belongs to another merchant; an identifier has one owner.
    case orderTypeOwnedByAnotherMerchant(orderTypeIdentifier: String)
    /// An order with this type and identifier already exists.
    case orderAlreadyExists(orderTypeIdentifier: String, orderIdentifier: String)
    /// Another order of this type has this order number (unique within an order type, as a shop's numbers are).
    case orderNumberExists(orderTypeIdentifier: String, orderNumber: String, existingOrderIdentifier: String)
    /// Another order, of any merchant, has this authentication token: a token names one order.
    case authenticationTokenTaken
    /// No order has this type and identifier.
    case orderNotFound(orderTypeIdentifier: String, orderIdentifier: String)
    /// The order's version moved since it was read: re-read and retry.
    case versionConflict(orderTypeIdentifier: String, orderIdentifier: String, expected: Int, actual: Int)
    /// The list cursor was not issued by this store.
    case invalidCursor(String)
    /// An argument is out of range or cannot be stored.
    case invalidArgument(name: String, reason: String)
    /// The database was written by a newer OrderTrack.
    case schemaTooNew(databaseVersion: Int, knownVersion: Int)
    /// A migration failed; the database stays at `version - 1`.
    case migrationFailed(version: Int, name: String, reason: String)
    /// A stored value could not be decoded.
    case corruptRecord(table: String, reason: String)
    /// The store was shut down.
    case storeClosed
    /// Opening the database failed.
    case openFailed(path: String, reason: String)
    /// The database cannot be reached or is not serving right now; the same call may succeed shortly.
    case unavailable(operation: String, reason: String)
    /// Another writer held a lock longer than the store waits (SQLite busy timeout, PostgreSQL lock or statement
    /// timeout); nothing was written and the same call may succeed shortly.
    case busy(operation: String, reason: String)
    /// The database has no space left; nothing was written.
    case storageFull(operation: String, reason: String)
    /// Any other database failure, with the operation that was attempted.
    case database(operation: String, reason: String)
    /// The master key does not open the secrets in this database: they were sealed with another key.
    case wrongMasterKey
    /// A merchant or order type still has orders, so it is not deleted without `force`.
    case stillHasOrders(subject: String, count: Int)
    /// The wallet link was revoked or expired: its device token registers nothing.
    case walletLinkClosed(id: String)
    /// No carrier connection has this id (it was deleted).
    case carrierConnectionNotFound(id: String)
    /// A carrier scan as new as or newer than the one an update applies was recorded on the fulfillment first: the
    /// update wrote nothing, and is decided again against the newer scan.
    case scanSuperseded(orderTypeIdentifier: String, orderIdentifier: String, fulfillmentIdentifier: String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .merchantNotFound(let id):
            "merchant \(id) does not exist; create it first"
        case .apiKeyAlreadyExists(let prefix):
            "an API key with this hash (prefix \(prefix)) is already stored; generate a new key"
        case .orderTypeNotFound(let type):
            "order type \(type) is not configured; add it with its signing identity first"
        case .orderTypeOwnedByAnotherMerchant(let type):
            "order type \(type) belongs to another merchant; an order type identifier can have only one owner"
        case .orderAlreadyExists(let type, let id):
            "order \(type)/\(id) already exists; update it instead of creating it"
        case .orderNumberExists(let type, let number, let existing):
            "order number \(number) is taken by order \(type)/\(existing); order numbers are unique within an order type"
        case .authenticationTokenTaken:
            "another order has this authentication token; leave it out to get a generated one"
        case .orderNotFound(let type, let id):
            "order \(type)/\(id) does not exist"
        case .versionConflict(let type, let id, let expected, let actual):
            "order \(type)/\(id) is at version \(actual), not \(expected): it changed concurrently; re-read it and retry"
        case .invalidCursor(let cursor):
            "cursor \"\(cursor)\" is not one this server issued; start again without a cursor"
        case .invalidArgument(let name, let reason):
            "invalid \(name): \(reason)"
        case .schemaTooNew(let databaseVersion, let knownVersion):
            "database schema version \(databaseVersion) is newer than this ordertrack (knows up to \(knownVersion)); upgrade ordertrack"
        case .migrationFailed(let version, let name, let reason):
            "database migration \(version) (\(name)) failed: \(reason); the database was left at version \(version - 1)"
        case .corruptRecord(let table, let reason):
            "a row of table \(table) cannot be read: \(reason)"
        case .storeClosed:
            "the order store was shut down"
        case .openFailed(let path, let reason):
            "cannot open database \(path): \(reason)"
        case .unavailable(let operation, let reason):
            "database unavailable while trying to \(operation): \(reason); retry shortly"
        case .busy(let operation, let reason):
            "database busy while trying to \(operation): \(reason); retry shortly"
        case .storageFull(let operation, let reason):
            "database storage full while trying to \(operation): \(reason); free space, then retry"
        case .database(let operation, let reason):
            "database error while trying to \(operation): \(reason)"
        case .wrongMasterKey:
            "the master key does not open this database's secrets (they were sealed with another key); start with the key the "
                + "database was last used with (ORDERTRACK_MASTER_KEY or --master-key-file), or rotate with `ordertrack rotate-master-key`"
        case .stillHasOrders(let subject, let count):
            "\(subject) still has \(count) order(s); delete them with it only with --force (devices of those orders get no further updates)"
        case .walletLinkClosed(let id):
            "wallet link \(id) was revoked or has expired; its device token registers nothing"
        case .carrierConnectionNotFound(let id):
            "carrier connection \(id) does not exist; connect the carrier again and give the aggregator the new webhook URL"
        case .scanSuperseded(let type, let id, let fulfillment):
            "fulfillment \(fulfillment) of order \(type)/\(id) has a newer carrier scan recorded; decide the update again"
        }
    }
}
