// libFuzzer: -max_len=8192
import OrderModel

// A merchant's patch (JSON) merged into a stored order, then validated as the server does. The input is either a
// patch for a fixed order or `[patch, order]`. Immutable and untouched keys must survive; `null` must remove.
let storedOrder = try! JSONValue.parse(
    Array(
        """
        {"schemaVersion": 1, "orderTypeIdentifier": "order.com.example.shop", "orderIdentifier": "ORD-1",
         "orderType": "ecommerce", "createdAt": "2026-11-20T10:00:00Z", "updatedAt": "2026-11-20T10:00:00Z",
         "status": "open", "orderManagementURL": "https://shop.example.com/orders/1",
         "merchant": {"displayName": "Shop", "merchantIdentifier": "merchant.com.example.shop", "url": "https://shop.example.com"},
         "payment": {"total": {"amount": "25.00", "currency": "USD"}, "status": "paid"},
         "fulfillments": [{"fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "onTheWay"},
                          {"fulfillmentType": "pickup", "fulfillmentIdentifier": "pick-1", "status": "open"}],
         "returns": [{"returnIdentifier": "ret-1", "status": "processing"}]}
        """.utf8))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let input = try? JSONValue.parse(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    let (patch, order) = if let pair = input.arrayValue, pair.count == 2 { (pair[0], pair[1]) } else { (input, storedOrder) }
    guard let result = try? OrderPatch.apply(patch, to: order), let changes = patch.objectValue else { return 0 }
    for key in OrderPatch.immutableKeys {
        precondition(result[key] == order[key], "patch changed immutable key \(key)")
    }
    for (key, value) in order.objectValue ?? [:] where changes[key] == nil {
        precondition(result[key] == value, "patch changed \(key), which it does not mention")
    }
    for (key, value) in changes where value == .null {
        precondition(result[key] == nil, "null in the patch did not remove \(key)")
    }
    _ = OrderValidator.validate(document: result)
    return 0
}
