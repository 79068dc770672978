import CarrierTracking
import OrderPersistence

extension IncomingCarrierEvent {
    /// A verified, parsed event as the inbox stores it: its tracking number in the form fulfillments are indexed by
    /// (``CarrierMatching/normalizedTrackingNumber(_:)``), the event itself as JSON for the worker.
    package init(_ event: CarrierEvent, connectionID: String) {
        self.init(
            connectionID: connectionID, idempotencyKey: event.idempotencyKey,
            trackingNumber: CarrierMatching.normalizedTrackingNumber(event.trackingNumber), carrier: event.carrierCode,
            orderReference: event.orderReference, occurredAt: event.occurredAt, event: event.storedForm)
    }
}
