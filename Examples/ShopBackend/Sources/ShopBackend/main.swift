import Foundation
import Hummingbird
import OrderTrackClient

// Configuration from the environment: the OrderTrack server and the shop's API key (a restricted key with
// orders:write and orders:read is enough).
let environment = ProcessInfo.processInfo.environment
guard let server = environment["ORDERTRACK_URL"].flatMap(URL.init(string:)), let apiKey = environment["ORDERTRACK_API_KEY"] else {
    print("set ORDERTRACK_URL and ORDERTRACK_API_KEY")
    exit(2)
}
let orderTrack = OrderTrack(serverURL: server, apiKey: apiKey)

/// What Apple Pay's PKPaymentAuthorizationResult.orderDetails takes.
struct OrderDetails: ResponseEncodable {
    var orderTypeIdentifier: String
    var orderIdentifier: String
    var webServiceURL: String
    var authenticationToken: String
}

/// The shop's payment-completed notification (here only its identifier and the cart's total).
struct CompletedPayment: Decodable {
    var paymentID: String
    var amount: String
    var currency: String
}

let router = Router()
// Payment completed: create the Wallet order (the payment id as idempotency key, so a retried notification makes no
// second order) and answer Apple Pay's orderDetails.
router.post("payments/completed") { request, context -> OrderDetails in
    let payment = try await request.decode(as: CompletedPayment.self, context: context)
    let content = try JSONDecoder().decode(
        Components.Schemas.OrderContent.self,
        from: JSONSerialization.data(withJSONObject: [
            "merchant": ["displayName": "Demo Shop", "merchantIdentifier": "merchant.dev.ordertrack.demo", "url": "https://shop.example.com"],
            "orderManagementURL": "https://shop.example.com/orders/\(payment.paymentID)",
            "orderNumber": payment.paymentID,
            "payment": ["total": ["amount": payment.amount, "currency": payment.currency], "status": "paid"],
            "fulfillments": [["fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"]],
        ]))
    let details = try await orderTrack.createOrder(content, idempotencyKey: payment.paymentID).value.orderDetails
    return OrderDetails(
        orderTypeIdentifier: details.orderTypeIdentifier, orderIdentifier: details.orderIdentifier, webServiceURL: details.webServiceURL,
        authenticationToken: details.authenticationToken)
}
// The parcel left: the order shows it on its way, with the carrier's tracking number, and Wallet is pushed the change.
router.post("orders/:type/:id/shipped") { request, context -> HTTPResponse.Status in
    let type = try context.parameters.require("type")
    let id = try context.parameters.require("id")
    let current = try await orderTrack.order(type: type, id: id)
    let patch = try JSONDecoder().decode(
        Components.Schemas.OrderPatch.self,
        from: Data(#"{"fulfillments": [{"fulfillmentIdentifier": "ship-1", "status": "onTheWay", "carrier": "UPS"}]}"#.utf8))
    _ = try await orderTrack.updateOrder(type: type, id: id, patch: patch, ifMatch: current.etag)
    return .noContent
}

let port = Int(environment["PORT"] ?? "") ?? 8090
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
