import BoundedCache
import CarrierTracking
import Foundation
import Logging
import OrderPersistence
import Synchronization

/// Receives one carrier webhook: finds its connection, verifies the signature on the raw body before anything reads
/// it, parses the event, stores it in the inbox and wakes the worker that applies it.
///
/// Nothing is stored unless the signature verifies, and the answer comes once the event is stored: the provider's
/// retries (or a redelivery) find it there and change nothing. Bodies and secrets are never logged.
struct CarrierWebhookReceiver: Sendable {
    /// What a delivery came to.
    enum Outcome: Equatable {
        /// Stored for the worker; the inbox id.
        case accepted(Int64)
        /// A redelivery of a stored event; the first delivery's inbox id.
        case duplicate(Int64)
        /// Verified, but not a tracking event: what it was.
        case ignored(String)
    }

    let store: any CarrierConnectionStore & CarrierEventInbox
    let connections: CarrierConnectionCache
    let keys: ShipEngineKeys
    let clock: ServerClock
    /// Tells the worker an event is waiting.
    let wake: @Sendable () -> Void

    /// Handles a delivery to `/carriers/<provider>/<connectionID>`.
    ///
    /// - Throws: ``APIError``: 404 for an unknown connection or a provider that is not the connection's (the same
    ///   answer, so a path reveals nothing), 401 when the signature does not verify, 400 for a body that is not the
    ///   provider's event.
    func receive(provider: String, connectionID: String, body: [UInt8], headers: CarrierRequestHeaders, logger: Logger) async throws -> Outcome {
        guard let connection = try await connections.connection(id: connectionID), connection.provider.rawValue == provider else {
            throw APIError.notFound("no such carrier connection")
        }
        let verifier = CarrierWebhookVerifier(
            provider: connection.provider, secret: connection.secret,
            keyProvider: connection.provider == .shipengine ? keys.provider(for: connection.jwksURL) : nil)
        do {
            try await verifier.verify(body: body, headers: headers, now: clock.date)
        } catch {
            logger.info(
                "carrier webhook refused",
                metadata: ["connection": .string(connection.id), "provider": .string(provider), "reason": .string(error.description)])
            throw APIError(
                status: .unauthorized, kind: .authentication, code: "signature_invalid",
                message: "the webhook's signature does not verify: \(error.message)")
        }
        let event: CarrierEvent
        do {
            switch try CarrierWebhookParser.parse(body, provider: connection.provider, headers: headers) {
            case .ignored(let what): return .ignored(what)
            case .event(let parsed): event = parsed
            }
        } catch {
            throw APIError.badRequest("carrier_event_invalid", "the body is not a \(provider) tracking event: \(error.message)")
        }
        let receipt: CarrierEventReceipt
        do {
            receipt = try await store.receiveCarrierEvent(IncomingCarrierEvent(event, connectionID: connection.id))
        } catch OrderStoreError.carrierConnectionNotFound {
            // Deleted while this delivery was being verified.
            throw APIError.notFound("no such carrier connection")
        } catch OrderStoreError.invalidArgument(_, let reason) {
            throw APIError.badRequest("carrier_event_invalid", "the event cannot be stored: \(reason)")
        }
        guard receipt.isNew else { return .duplicate(receipt.id) }
        wake()
        return .accepted(receipt.id)
    }
}

/// A connection as the webhook route uses it: read from the store and typed.
struct WebhookConnection: Sendable {
    var id: String
    var provider: CarrierProvider
    var secret: String?
    var jwksURL: URL?
}

/// This instance's connections in memory, so a webhook costs one database write and no read.
///
/// Bounded by count, and each entry is used for ``CarrierConfiguration/connectionCacheLifetime``: a connection deleted
/// on another instance, or with the command line, stops being accepted here within that time; one deleted through this
/// instance's API is forgotten at once (``forget(_:)``), and a read that was under way when it was forgotten is not
/// kept.
final class CarrierConnectionCache: Sendable {
    private struct Entry: Sendable {
        var connection: WebhookConnection
        var loadedAt: ServerClock.Instant
    }

    private struct State: Sendable {
        var entries: LRUCache<String, Entry>
        /// Counts forgets: a read that began before one is not kept, since it may have read the deleted connection.
        var generation = 0
    }

    private let store: any CarrierConnectionStore
    private let lifetime: Duration
    private let clock: ServerClock
    private let state: Mutex<State>

    init(store: any CarrierConnectionStore, configuration: CarrierConfiguration, clock: ServerClock) {
        self.store = store
        lifetime = configuration.connectionCacheLifetime
        self.clock = clock
        state = Mutex(State(entries: LRUCache(capacity: max(1, configuration.connectionCacheCapacity))))
    }

    /// The connection with `id`, or `nil` when there is none or its provider is not one this server knows.
    func connection(id: String) async throws -> WebhookConnection? {
        let now = clock.now
        let (cached, generation) = state.withLock { state -> (WebhookConnection?, Int) in
            guard let entry = state.entries.value(forKey: id), entry.loadedAt.duration(to: now) < lifetime else { return (nil, state.generation) }
            return (entry.connection, state.generation)
        }
        if let cached { return cached }
        guard let record = try await store.carrierConnection(id: id), let provider = CarrierProvider(rawValue: record.provider) else { return nil }
        let connection = WebhookConnection(
            id: record.id, provider: provider, secret: record.secret, jwksURL: record.jwksURL.flatMap(URL.init(string:)))
        state.withLock { state in
            guard state.generation == generation else { return }
            _ = state.entries.setValue(Entry(connection: connection, loadedAt: now), forKey: id, cost: 1)
        }
        return connection
    }

    /// Forgets connection `id` (deleted): the next webhook reads the store, which no longer has it.
    func forget(_ id: String) {
        state.withLock { state in
            state.generation += 1
            _ = state.entries.removeValue(forKey: id)
        }
    }
}
