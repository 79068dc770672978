import Logging
import OrderStore

/// Learns of order changes that registered devices must hear about.
protocol OrderChangeNotifier: Sendable {
    /// Called after an order changed.
    func orderChanged(_ order: OrderRecord) async
    /// Tells every registered device to fetch the order again; returns how many registrations that reaches.
    func renotify(_ order: OrderRecord) async throws -> Int
}

/// Records which devices are due a push in the log. Delivery through APNs replaces it in a later release; until then
/// devices still learn of changes when Wallet polls the registrations endpoint.
struct LoggingChangeNotifier: OrderChangeNotifier {
    let store: any OrderStore
    let logger: Logger

    func orderChanged(_ order: OrderRecord) async {
        _ = try? await renotify(order)
    }

    func renotify(_ order: OrderRecord) async throws -> Int {
        let registrations = try await store.registrations(orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier)
        for registration in registrations {
            logger.info("push due", metadata: [
                "order": .string(order.orderIdentifier), "type": .string(order.orderTypeIdentifier),
                "token_suffix": .string(String(registration.pushToken.suffix(8))),
            ])
        }
        return registrations.count
    }
}
