import OrderPersistence

/// Learns of order changes that registered devices must hear about.
protocol OrderChangeNotifier: Sendable {
    /// Called after an order changed; its pushes were queued in the same transaction as the change, so which order it
    /// was does not matter here.
    func orderChanged() async
    /// Queues a push to every registered device without a change; returns how many tokens that reaches.
    func renotify(_ order: OrderRecord) async throws -> Int
}

/// Wakes the dispatcher for pushes queued in the durable outbox.
struct OutboxNotifier: OrderChangeNotifier {
    let store: any PushOutbox
    let dispatcher: PushDispatcher

    func orderChanged() async {
        dispatcher.wake()
    }

    func renotify(_ order: OrderRecord) async throws -> Int {
        let queued = try await store.enqueuePushes(orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier)
        dispatcher.wake()
        return queued
    }
}
