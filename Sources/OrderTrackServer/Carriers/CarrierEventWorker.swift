import CarrierTracking
import Foundation
import Logging
import OrderModel
import OrderPersistence
import ServiceLifecycle
import Synchronization

/// Applies the verified carrier events of the inbox to the fulfillments they are about, through the one update path
/// (``OrderService/updateOrder(merchant:type:id:patch:author:allowedVersions:)``): validation, a new version, the
/// outbox and its pushes, the audit trail naming `carrier:<provider>` and the connection.
///
/// Safe with several instances and across a kill, as the push outbox is: events are leased, and one whose worker died
/// is claimed again when its lease runs out. Applying an event twice changes nothing the second time, because the
/// update rules compare it with the order as it now is. Scans apply in the order they happened, whatever order they
/// arrive in: an older scan than the fulfillment's last applied one is ignored, and an update is written only against
/// the version it was decided on.
final class CarrierEventWorker: Service, Sendable {
    typealias Store = CarrierEventInbox & CarrierConnectionStore & FulfillmentTrackingStore & MerchantStore & OrderTypeStore

    private let store: any Store
    private let orders: OrderService
    private let configuration: CarrierConfiguration
    private let logger: Logger
    private let clock: ServerClock
    /// New events (the webhook route), requeued ones (order writes that gave fulfillments tracking numbers), poll ticks.
    private let signal: WakeSignal

    init(
        store: any Store, orders: OrderService, configuration: CarrierConfiguration, signal: WakeSignal, logger: Logger, clock: ServerClock
    ) {
        self.store = store
        self.orders = orders
        self.configuration = configuration
        self.signal = signal
        self.logger = logger
        self.clock = clock
    }

    func run() async throws {
        guard configuration.appliesEvents else {
            // Off, the events wait in the inbox for an instance that applies them; the service ends with the others.
            try? await gracefulShutdown()
            return
        }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.tickPolls() }
                await self.applyUntilShutdown()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.signal.wake()
        }
    }

    private func tickPolls() async {
        while (try? await clock.sleep(for: configuration.pollInterval)) != nil { signal.wake() }
    }

    private func applyUntilShutdown() async {
        await signal.applyBatches(limit: configuration.batchesInFlight) {
            do {
                return try await store.claimCarrierEvents(limit: configuration.batchSize, leaseDuration: configuration.leaseDuration)
            } catch {
                logger.error("carrier event inbox unavailable", metadata: ["error": .string("\(error)")])
                return []
            }
        } apply: { batch in
            await self.apply(batch)
        }
    }

    /// Applies a claimed batch: each parcel's events in scan order, parcels side by side.
    private func apply(_ batch: [CarrierEventRecord]) async {
        let context: BatchContext
        do {
            context = try await BatchContext(batch, store: store, orders: orders)
        } catch {
            logger.error("could not read the connections of carrier events", metadata: ["error": .string("\(error)")])
            return
        }
        let parcels = Dictionary(grouping: batch) { BatchContext.parcel($0.merchantID, $0.trackingNumber) }.values.map {
            $0.sorted { ($0.occurredAt, $0.id) < ($1.occurredAt, $1.id) }
        }
        let outcomes = await withTaskGroup(of: [(CarrierEventRecord, Outcome?)].self) { group in
            var outcomes: [(CarrierEventRecord, Outcome?)] = []
            for (index, parcel) in parcels.enumerated() {
                if index >= configuration.concurrency, let done = await group.next() { outcomes += done }
                group.addTask {
                    var done: [(CarrierEventRecord, Outcome?)] = []
                    // The batch's read of the parcel's orders is current for its first event only.
                    for (index, record) in parcel.enumerated() {
                        done.append((record, await self.outcome(of: record, context: context, readWithBatch: index == 0)))
                    }
                    return done
                }
            }
            for await done in group { outcomes += done }
            return outcomes
        }
        await finish(outcomes)
    }

    /// Where an event ends, and the words the dashboard shows for it.
    struct Outcome: Sendable, Equatable {
        var state: CarrierEventState
        var text: String
        var match: CarrierEventMatch?
        /// Unmatched: the fulfillments with its tracking number that the worker could not tell apart (none, or several).
        var candidates = 0
        /// Applied without a change: the scan to record on the fulfillment with the finish.
        var scannedAt: Date?
    }

    /// Records the batch's outcomes in one transaction. An event without one failed for a reason outside it (the
    /// database): its claim runs out and it is tried again.
    private func finish(_ outcomes: [(CarrierEventRecord, Outcome?)]) async {
        let finishes = outcomes.compactMap { record, outcome in
            outcome.map {
                CarrierEventFinish(
                    id: record.id, attempt: record.attempts, state: $0.state, outcome: $0.text, match: $0.match, candidates: $0.candidates,
                    scannedAt: $0.scannedAt)
            }
        }
        do {
            _ = try await store.finishCarrierEvents(finishes)
        } catch {
            logger.error("could not finish carrier events", metadata: ["events": .stringConvertible(finishes.count), "error": .string("\(error)")])
        }
    }

    /// The outcome of applying one event, or `nil` to leave it to its next claim.
    func outcome(of record: CarrierEventRecord, context: BatchContext, readWithBatch: Bool) async -> Outcome? {
        do {
            return try await apply(record, context: context, readWithBatch: readWithBatch)
        } catch let error as OrderTrackError {
            // The order refused the change (a carrier's link Wallet would not show, an order changed by many at once):
            // trying again would be refused again.
            return Outcome(state: .failed, text: "the order refused the change: \(error.reason)")
        } catch {
            guard record.attempts < configuration.maximumAttempts else {
                return Outcome(state: .failed, text: "gave up after \(record.attempts) attempts: \(error)")
            }
            logger.warning(
                "carrier event not applied; it is tried again when its claim runs out",
                metadata: ["event": .stringConvertible(record.id), "attempt": .stringConvertible(record.attempts), "error": .string("\(error)")])
            return nil
        }
    }

    private func apply(_ record: CarrierEventRecord, context: BatchContext, readWithBatch: Bool) async throws -> Outcome {
        let event: CarrierEvent
        do {
            event = try CarrierEvent(storedForm: record.event)
        } catch {
            return Outcome(state: .failed, text: "the stored event cannot be read: \(error)")
        }
        // A scan dated ahead of the clock would make every real scan before that time look stale.
        let latest = clock.date.addingTimeInterval(OrderService.maximumFutureDate)
        guard event.occurredAt <= latest else {
            return Outcome(
                state: .failed,
                text:
                    "scanned at \(DateTimeFormat.formatRFC3339(event.occurredAt)), more than an hour after the server's clock (\(DateTimeFormat.formatRFC3339(clock.date)))"
            )
        }
        guard let connection = context.connections[record.connectionID] else {
            return Outcome(state: .ignored, text: "its connection was deleted")
        }
        guard let merchant = context.merchants[record.merchantID] else {
            return Outcome(state: .ignored, text: "its merchant was deleted")
        }
        let statusMap: CarrierStatusMap
        do {
            statusMap = try context.statusMap(of: connection, for: event.provider).get()
        } catch {
            return Outcome(state: .failed, text: "the connection's status map is invalid: \(error.message)")
        }
        let author = OrderChangeAuthor.carrier(provider: event.provider.rawValue, connectionID: connection.id)
        // An update is written only against the version it was decided on; another writer in between means deciding again.
        for attempt in 0..<8 {
            let target: Target
            let read = attempt == 0 && readWithBatch ? context.trackedOrders(record) : nil
            switch try await find(record, event, merchant: merchant, read: read) {
            case .found(let found): target = found
            case .none(let reason, let candidates): return Outcome(state: .unmatched, text: reason, candidates: candidates)
            }
            let match = CarrierEventMatch(order: target.order.key, fulfillmentIdentifier: target.fulfillmentIdentifier)
            let decision = CarrierUpdateRules.decide(
                fulfillment: target.fulfillment, lastAppliedScanAt: target.lastScanAt, event: event, statusMap: statusMap)
            switch decision {
            case .stale:
                return Outcome(
                    state: .ignored,
                    text: "older than the last scan applied (\(DateTimeFormat.formatRFC3339(target.lastScanAt ?? event.occurredAt)))",
                    match: match)
            case .unchanged:
                // The scan is recorded with the batch's finish, in its transaction.
                let status = Self.statusWords(statusMap.outcome(for: event))
                return Outcome(state: .applied, text: "no change Wallet shows (\(status))", match: match, scannedAt: event.occurredAt)
            case .update(let update):
                // The scan is recorded in the update's transaction; a newer one recorded first means deciding again.
                let updated: OrderService.UpdatedOrder
                do {
                    updated = try await orders.updateOrder(
                        merchant: merchant, type: match.order.orderTypeIdentifier, id: match.order.orderIdentifier,
                        patch: update.orderPatch, author: author, allowedVersions: [target.order.version], current: target.order,
                        scan: FulfillmentScan(fulfillmentIdentifier: match.fulfillmentIdentifier, at: event.occurredAt, wasTracked: target.isTracked),
                        inputs: try await context.updateInputs.inputs(merchant: merchant, type: match.order.orderTypeIdentifier))
                } catch let error as OrderTrackError where error.code == .versionMismatch {
                    continue
                } catch OrderStoreError.scanSuperseded {
                    continue
                }
                // An update that wrote nothing (its change translated away) recorded no scan: the finish does.
                return Outcome(
                    state: .applied, text: Self.describe(update, before: target.fulfillment, updated: updated), match: match,
                    scannedAt: updated.changed ? nil : event.occurredAt)
            }
        }
        throw OrderTrackError(.updateContention, "the order kept changing while the event was applied")
    }

    /// The fulfillment an event is about, as it is now.
    struct Target: Sendable {
        var order: OrderRecord
        var fulfillment: JSONValue
        var fulfillmentIdentifier: String
        /// Whether the store knows the fulfillment's tracking number (it is found by it).
        var isTracked: Bool
        var lastScanAt: Date?
    }

    enum Found: Sendable {
        case found(Target)
        /// Why none, and how many fulfillments had the tracking number.
        case none(String, candidates: Int)
    }

    /// The one shipping fulfillment of the merchant's orders the event is about: by its tracking number (the carrier
    /// deciding between several), else by the provider's order reference (order number, then order identifier).
    /// `read` is what the batch read of the tracking number; `nil` reads it now.
    private func find(_ record: CarrierEventRecord, _ event: CarrierEvent, merchant: MerchantRecord, read: [TrackedOrder]?) async throws -> Found {
        let tracked: [TrackedOrder]
        if let read {
            tracked = read
        } else {
            tracked = try await store.trackedOrders(merchantID: merchant.id, trackingNumbers: [record.trackingNumber])
        }
        if !tracked.isEmpty {
            var candidates: [Target] = []
            var documents: [OrderKey: JSONValue] = [:]
            for item in tracked {
                let document = try documents[item.order.key] ?? JSONValue.parse(item.order.document)
                documents[item.order.key] = document
                let identifier = item.fulfillment.entry.fulfillmentIdentifier
                guard
                    let fulfillment = document["fulfillments"]?.arrayValue?.first(where: { $0["fulfillmentIdentifier"]?.stringValue == identifier })
                else { continue }
                candidates.append(
                    Target(
                        order: item.order, fulfillment: fulfillment, fulfillmentIdentifier: identifier, isTracked: true,
                        lastScanAt: item.fulfillment.lastScanAt))
            }
            guard let chosen = CarrierMatching.preferred(candidates, for: event, carrier: { $0.fulfillment["carrier"]?.stringValue }) else {
                return .none(
                    candidates.isEmpty
                        ? "no shipping fulfillment has tracking number \(record.trackingNumber)"
                        : "\(candidates.count) shipping fulfillments have tracking number \(record.trackingNumber) and the carrier tells none apart",
                    candidates: tracked.count)
            }
            return .found(chosen)
        }
        guard let reference = event.orderReference else {
            return .none("no shipping fulfillment has tracking number \(record.trackingNumber)", candidates: 0)
        }
        let referenced = try await orders(merchant: merchant, reference: reference)
        guard referenced.count == 1, let order = referenced.first else {
            return .none(
                referenced.isEmpty
                    ? "no shipping fulfillment has tracking number \(record.trackingNumber), and no order is \(reference)"
                    : "no shipping fulfillment has tracking number \(record.trackingNumber), and several orders are \(reference)", candidates: 0)
        }
        let document = try JSONValue.parse(order.document)
        guard let fulfillment = CarrierMatching.fulfillment(in: document, for: event, byOrderReference: true),
            let identifier = fulfillment["fulfillmentIdentifier"]?.stringValue
        else {
            return .none("order \(order.orderIdentifier) (\(reference)) has no one shipping fulfillment without a tracking number", candidates: 0)
        }
        // The order may have the number under another spelling the index has not seen (an order written before carrier
        // tracking existed): its last scan is then unknown.
        return .found(Target(order: order, fulfillment: fulfillment, fulfillmentIdentifier: identifier, isTracked: false, lastScanAt: nil))
    }

    private func orderIfPresent(merchant: MerchantRecord, key: OrderKey) async throws -> OrderRecord? {
        do {
            return try await orders.order(merchant: merchant, type: key.orderTypeIdentifier, id: key.orderIdentifier)
        } catch let error as OrderTrackError where error.code == .notFound {
            return nil
        }
    }

    /// The merchant's orders a provider's order reference names: by order number, else by order identifier.
    private func orders(merchant: MerchantRecord, reference: String) async throws -> [OrderRecord] {
        let numbered = try await orders.listOrders(
            merchant: merchant, orderTypeIdentifier: nil, orderNumber: reference, status: nil, updatedSince: nil, cursor: nil, limit: 2)
        if !numbered.orders.isEmpty { return numbered.orders }
        var found: [OrderRecord] = []
        for type in try await store.orderTypes(merchantID: merchant.id) {
            if let order = try await orderIfPresent(
                merchant: merchant, key: OrderKey(orderTypeIdentifier: type.orderTypeIdentifier, orderIdentifier: reference))
            {
                found.append(order)
            }
        }
        return found
    }

    private static func statusWords(_ outcome: CarrierStatusOutcome) -> String {
        switch outcome {
        case .status(let status, _): "maps to \(status.rawValue)"
        case .noChange: "the status map moves nothing for it"
        case .unmapped: "a status no row of the status map knows"
        }
    }

    /// What an applied update did, in a few words: `onTheWay → outForDelivery, estimatedDeliveryAt; version 4`.
    private static func describe(_ update: CarrierFulfillmentUpdate, before: JSONValue, updated: OrderService.UpdatedOrder) -> String {
        var parts: [String] = []
        if let status = update.status {
            parts.append("\(before["status"]?.stringValue ?? "open") → \(status.rawValue)")
        }
        parts += update.members.keys.filter { $0 != "status" }.sorted()
        if updated.document["status"]?.stringValue == "completed", updated.changed { parts.append("order completed") }
        return parts.joined(separator: ", ") + "; version \(updated.record.version)"
    }
}

/// What the events of one claimed batch share, read once: their connections and merchants, the tracked fulfillments
/// with their orders, and what updates of those orders' types read besides the order (a read per merchant or order
/// type rather than several per event).
struct BatchContext: Sendable {
    var connections: [String: CarrierConnectionRecord] = [:]
    var merchants: [String: MerchantRecord] = [:]
    let updateInputs: UpdateInputsMemo
    private var tracked: [String: [TrackedOrder]] = [:]
    /// Each connection's status map for its own provider, built once per batch rather than once per event.
    private var statusMaps: [String: Result<CarrierStatusMap, CarrierWebhookError>] = [:]

    init(_ batch: [CarrierEventRecord], store: any CarrierEventWorker.Store, orders: OrderService) async throws {
        updateInputs = UpdateInputsMemo(orders: orders)
        for id in Set(batch.map(\.connectionID)) {
            guard let connection = try await store.carrierConnection(id: id) else { continue }
            connections[id] = connection
            if let provider = CarrierProvider(rawValue: connection.provider) {
                statusMaps[id] = Self.statusMap(of: connection, for: provider)
            }
        }
        for id in Set(batch.map(\.merchantID)) { merchants[id] = try await store.merchant(id: id) }
        for (merchantID, events) in Dictionary(grouping: batch, by: \.merchantID) {
            let found = try await store.trackedOrders(merchantID: merchantID, trackingNumbers: events.map(\.trackingNumber))
            for item in found { tracked[Self.parcel(merchantID, item.fulfillment.entry.trackingNumber), default: []].append(item) }
        }
    }

    /// The connection's status map for events of `provider`: the batch's when that is the connection's provider.
    func statusMap(of connection: CarrierConnectionRecord, for provider: CarrierProvider) -> Result<CarrierStatusMap, CarrierWebhookError> {
        guard connection.provider == provider.rawValue, let built = statusMaps[connection.id] else {
            return Self.statusMap(of: connection, for: provider)
        }
        return built
    }

    private static func statusMap(of connection: CarrierConnectionRecord, for provider: CarrierProvider) -> Result<
        CarrierStatusMap, CarrierWebhookError
    > {
        Result { () throws(CarrierWebhookError) in try CarrierStatusMap(provider: provider, overrides: connection.statusMap ?? [:]) }
    }

    static func orderType(_ merchantID: String, _ orderTypeIdentifier: String) -> String { "\(merchantID)\u{0}\(orderTypeIdentifier)" }

    /// The tracked fulfillments with the event's tracking number as the batch read them (none is an empty list).
    func trackedOrders(_ record: CarrierEventRecord) -> [TrackedOrder] {
        tracked[Self.parcel(record.merchantID, record.trackingNumber)] ?? []
    }

    static func parcel(_ merchantID: String, _ trackingNumber: String) -> String { "\(merchantID)\u{0}\(trackingNumber)" }
}

/// What updates of a merchant's order type read besides the order, read once per batch by the first of its events that
/// changes an order: a batch of scans that change nothing Wallet shows (most of a parcel's scans) reads none.
final class UpdateInputsMemo: Sendable {
    private let orders: OrderService
    /// By ``BatchContext/orderType(_:_:)``: one read however many of the batch's parcels ask at once (the first reads,
    /// the others wait for it).
    private let reads = Mutex<[String: SharedOutcome<OrderService.UpdateInputs>]>([:])

    init(orders: OrderService) {
        self.orders = orders
    }

    func inputs(merchant: MerchantRecord, type: String) async throws -> OrderService.UpdateInputs {
        let (outcome, isFirst) = reads.withLock { reads in
            let key = BatchContext.orderType(merchant.id, type)
            if let outcome = reads[key] { return (outcome, false) }
            let outcome = SharedOutcome<OrderService.UpdateInputs>()
            reads[key] = outcome
            return (outcome, true)
        }
        if isFirst { outcome.finish(await Result { try await orders.updateInputs(merchant: merchant, type: type) }) }
        return try await outcome.value()
    }
}
