import OrderModel

/// Sample documents shared by the model tests.
enum Fixtures {
    /// A valid order that uses every object of the schema.
    static var fullOrder: JSONValue {
        [
            "schemaVersion": 1,
            "orderTypeIdentifier": "order.com.example.shop",
            "orderIdentifier": "ORD-1001",
            "orderType": "ecommerce",
            "createdAt": "2026-11-20T10:00:00Z",
            "updatedAt": "2026-11-21T08:30:00.125+01:00",
            "status": "open",
            "orderNumber": "1001",
            "orderManagementURL": "https://shop.example.com/orders/1001",
            "webServiceURL": "https://orders.example.com/wallet",
            "authenticationToken": "c2VjcmV0LXRva2VuLTEyMzQ1Njc4",
            "changeNotifications": "enabled",
            "statusDescription": "On its way",
            "associatedApplications": [["storeIdentifier": 123456789, "launchURL": "shop://orders/1001"]],
            "associatedApplicationIdentifiers": ["ABCDE12345.com.example.shop"],
            "barcode": ["format": "qr", "message": "1001", "messageEncoding": "iso-8859-1", "altText": "1001"],
            "customer": [
                "givenName": "Ada", "familyName": "Lovelace", "emailAddress": "ada@example.com", "phoneNumber": "+44 20 1234",
                "organizationName": "Engines Ltd",
            ],
            "merchant": [
                "displayName": "Example Shop",
                "merchantIdentifier": "merchant.com.example.shop",
                "url": "https://shop.example.com",
                "logo": "logo.png",
                "address": [
                    "addressLines": ["1 Infinite Loop"], "locality": "Cupertino", "administrativeArea": "CA", "postalCode": "95014",
                    "countryCode": "US", "subLocality": "Downtown", "subAdministrativeArea": "Santa Clara",
                ],
                "businessChatURL": "https://bcrw.apple.com/urn:biz:1234",
                "contactURL": "https://shop.example.com/contact",
                "emailAddress": "help@example.com",
                "phoneNumber": "+1 408 555 0100",
            ],
            "lineItems": [
                [
                    "title": "Espresso beans", "subtitle": "1 kg", "quantity": 2, "price": ["amount": "12.5", "currency": "USD"],
                    "image": "beans.png", "sku": "BEAN-1", "gtin": "00012345678905",
                ]
            ],
            "payment": [
                "total": ["amount": 25, "currency": "USD"],
                "status": "paid",
                "summaryItems": [["label": "Subtotal", "value": ["amount": .number("25.00"), "currency": "USD"]]],
                "paymentMethods": ["Visa 1234"],
                "applePayTransactionIdentifiers": ["A1B2C3"],
                "transactions": [
                    [
                        "amount": ["amount": 25, "currency": "USD"], "createdAt": "2026-11-20T10:00:00Z",
                        "paymentMethod": ["displayName": "Visa 1234"], "status": "completed", "transactionType": "purchase",
                        "applePayTransactionIdentifier": "A1B2C3", "receipt": "receipt.pdf",
                    ]
                ],
            ],
            "fulfillments": [
                [
                    "fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "onTheWay", "carrier": "UPS",
                    "trackingNumber": "1Z999", "trackingURL": "https://ups.example.com/track?n=1Z999", "shippedAt": "2026-11-20T12:00:00Z",
                    "estimatedDeliveryAt": "2026-11-22T09:00:00Z", "estimatedDeliveryWindowDuration": "PT4H", "shippingType": "shipping",
                    "notes": "Leave at door", "statusDescription": "In transit", "deliveredAt": "2026-11-22T10:00:00Z",
                    "lineItems": [["title": "Espresso beans", "quantity": 2]],
                    "recipient": [
                        "givenName": "Ada", "familyName": "Lovelace", "organizationName": "Engines Ltd",
                        "address": ["countryCode": "GB", "locality": "London"],
                    ],
                ],
                [
                    "fulfillmentType": "pickup", "fulfillmentIdentifier": "pick-1", "displayName": "Main Street store", "status": "readyForPickup",
                    "address": ["addressLines": ["5 Main St"], "countryCode": "US"],
                    "location": ["latitude": .number("37.33"), "longitude": .number("-122.03"), "altitude": 12],
                    "barcode": ["format": "code128", "message": "PICK1", "messageEncoding": "iso-8859-1"],
                    "pickupAt": "2026-11-22T09:00:00Z", "pickupWindowDuration": "P0Y0M0DT0H30M0S", "pickedUpAt": "2026-11-22T09:10:00Z",
                    "lineItems": [["title": "Mug", "quantity": 1]], "notes": "Bring ID", "statusDescription": "Ready",
                ],
            ],
            "returnInfo": [
                "returnPolicyURL": "https://shop.example.com/returns", "displayCountdown": true, "returnDeadline": "2026-12-20T00:00:00Z",
                "returnManagementURL": "https://shop.example.com/returns/1001", "returnPolicyDescription": "30 days",
            ],
            "returns": [
                [
                    "returnIdentifier": "ret-1", "status": "processing", "carrier": "UPS", "dropOffBy": "2026-12-01T00:00:00Z",
                    "initiatedAt": "2026-11-25T00:00:00Z", "returnedAt": "2026-11-26T00:00:00Z", "lineItems": [["title": "Mug", "quantity": 1]],
                    "notes": "Box it", "returnLabel": "label.pdf", "returnManagementURL": "https://shop.example.com/returns/1001/1",
                    "returnNumber": "R-1", "statusDescription": "Received",
                ]
            ],
            "orderProvider": [
                "displayName": "Platform", "trackingLogoNameDarkColorScheme": "provider-dark.png",
                "trackingLogoNameLightColorScheme": "provider-light.png", "url": "https://platform.example.com",
            ],
        ]
    }

    /// A valid order with only the required keys.
    static var minimalOrder: JSONValue {
        [
            "schemaVersion": 1,
            "orderTypeIdentifier": "order.com.example.shop",
            "orderIdentifier": "ORD-1",
            "orderType": "ecommerce",
            "createdAt": "2026-11-20T10:00:00Z",
            "updatedAt": "2026-11-20T10:00:00Z",
            "status": "open",
            "merchant": ["displayName": "Example Shop", "merchantIdentifier": "merchant.com.example.shop", "url": "https://shop.example.com"],
            "orderManagementURL": "https://shop.example.com/orders/1",
        ]
    }

    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
    static let pdf: [UInt8] = Array("%PDF-1.4\n%%EOF\n".utf8)

    /// The files `fullOrder` references.
    static var fullOrderFiles: [String: [UInt8]] {
        var files: [String: [UInt8]] = [
            "order.json": fullOrder.serialized(),
            "receipt.pdf": pdf,
            "label.pdf": pdf,
        ]
        for name in ["logo.png", "logo@2x.png", "beans.png", "provider-dark.png", "provider-light.png"] { files[name] = png }
        return files
    }

    static func problems(_ report: ValidationReport) -> String {
        report.problems.map(\.description).joined(separator: "\n")
    }
}
