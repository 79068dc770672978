import OrderModel
import OrderPersistence

/// The checkout playground's payments: with an Apple Pay token (Safari) it is ``ApplePayService/checkout`` exactly, as
/// `POST /api/v1/apple_pay/payments` runs it; without one (a simulation, in any browser) it creates the order through
/// the same ``OrderService/createOrder(merchant:content:idempotency:now:responseBody:)`` and answers the same
/// `orderDetails` (``OrderService/CreatedOrder/responseJSON(webServiceURL:)``), with `simulated: true` and no `payment`.
package struct CheckoutPlayground: Sendable {
    let orders: OrderService
    package let applePay: ApplePayService

    package init(orders: OrderService, applePay: ApplePayService) {
        self.orders = orders
        self.applePay = applePay
    }

    /// Pays for `order` with `token`, or simulates the payment when there is none. `attempt` (the page's
    /// `Idempotency-Key`) makes a repeated simulation answer the first one's order rather than create another.
    package func pay(merchant: MerchantRecord, token: JSONValue?, order: JSONValue, attempt: String?, author: OrderChangeAuthor) async throws
        -> ApplePayService.Checkout
    {
        if let token { return try await applePay.checkout(merchant: merchant, token: token, order: order, author: author) }
        return try await simulate(merchant: merchant, order: order, attempt: attempt, author: author)
    }

    private func simulate(merchant: MerchantRecord, order: JSONValue, attempt: String?, author: OrderChangeAuthor) async throws
        -> ApplePayService.Checkout
    {
        // Prefixed like Apple Pay's `apple-pay/…` keys, apart from the keys a merchant's server sends.
        let idempotency = attempt.map {
            OrderService.IdempotentRequest(key: "checkout-playground/\($0)", requestHash: Secrets.sha256Hex(order.serialized()))
        }
        if let idempotency, let saved = try await orders.savedResponse(merchant: merchant, idempotency: idempotency, grant: author.grant) {
            return ApplePayService.Checkout(body: saved.body, created: false)
        }
        let webServiceURL = orders.webServiceURL
        // A real checkout refuses an order it cannot check the payment against: so does its simulation.
        let outcome = try await orders.createOrder(
            merchant: merchant, content: order, idempotency: idempotency, author: author,
            accepting: { _ = try ApplePayService.expectedAmount(of: $0) }
        ) { created in
            var answer = created.responseJSON(webServiceURL: webServiceURL)
            answer["simulated"] = true
            return answer.serialized()
        }
        switch outcome {
        case .created(_, let body): return ApplePayService.Checkout(body: body, created: true)
        case .replayed(let saved): return ApplePayService.Checkout(body: saved.body, created: false)
        }
    }
}
