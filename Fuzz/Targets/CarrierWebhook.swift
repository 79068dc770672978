// libFuzzer: -max_len=16384
import CarrierTracking
import Foundation
import OrderModel

// Carrier webhook bodies as any provider (the first byte picks it) sends them, after the signature checked. Parsing
// must never trap; an event must be within its bounds; and the update rules, fed the event, must only touch members a
// fulfillments:write key may change.
let allowedMembers: Set<String> = [
    "status", "carrier", "trackingNumber", "trackingURL", "estimatedDeliveryAt", "estimatedDeliveryWindowDuration", "statusDescription", "shippedAt",
    "deliveredAt",
]
let fulfillment: JSONValue = ["fulfillmentIdentifier": "f1", "fulfillmentType": "shipping", "status": "onTheWay", "statusDescription": "Delayed"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let providers = CarrierProvider.allCases
    let provider = providers[Int(data[0]) % providers.count]
    let body = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let headers = CarrierRequestHeaders(["x-shipengine-timestamp": "2026-11-26T19:35:00Z", "As-Webhook-Version": "2026-07"])
    let result: CarrierWebhookParseResult
    do {
        result = try CarrierWebhookParser.parse(body, provider: provider, headers: headers)
    } catch {
        precondition(!error.message.isEmpty && !error.isAuthenticationFailure, "unexpected error \(error)")
        return 0
    }
    guard case .event(let event) = result else { return 0 }
    precondition(event.provider == provider, "event of the wrong provider")
    precondition(!event.idempotencyKey.isEmpty, "empty idempotency key")
    precondition((1...CarrierWebhookParser.maximumTrackingNumberLength).contains(event.trackingNumber.utf8.count), "tracking number out of bounds")
    precondition((event.statusDescription?.count ?? 0) <= CarrierWebhookParser.maximumDescriptionLength, "description out of bounds")
    precondition(event.trackingURL.map { ["http", "https"].contains($0.scheme?.lowercased() ?? "") } ?? true, "tracking URL of another scheme")
    let decision = CarrierUpdateRules.decide(fulfillment: fulfillment, lastAppliedScanAt: nil, event: event, statusMap: .defaults(for: provider))
    if case .update(let update) = decision {
        precondition(!update.members.isEmpty && Set(update.members.keys).isSubset(of: allowedMembers), "update touches \(update.members.keys)")
    }
    return 0
}
