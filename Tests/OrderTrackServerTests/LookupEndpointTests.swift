import Foundation
import HTTPTypes
import OrderLookupSigning
import OrderModel
import OrderPersistence
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackServer

/// `GET /inApps/v1/lookup/{orderId}` and the lookup keys: the answer codes in Swift, then Apple's own App Store Server
/// Library (lookup_judge.py) as the client and verifier.
@Suite struct LookupEndpointTests {
    static let rateLimit = 12

    static func server() throws -> TestServer {
        var server = try TestServer()
        server.lookup.rateLimit = rateLimit
        server.lookup.rateLimitWindow = .seconds(3_600)
        return server
    }

    /// An order of the demo merchant with five line items.
    static func order(number: String) -> JSONValue {
        var order = SampleContent.order
        let items: [JSONValue] = (1...5).map { index in
            [
                "title": .string("Item \(index)"), "sku": .string("SKU-\(index)"), "quantity": .integer(index),
                "price": ["amount": .string("\(index).25"), "currency": "USD"],
            ]
        }
        if case .object(var fields) = order {
            fields["orderNumber"] = .string(number)
            fields["lineItems"] = .array(items)
            order = .object(fields)
        }
        return order
    }

    static func token(_ key: DevelopmentLookupCredentials, exp: TimeInterval = 300, now: Date = Date()) async throws -> String {
        let pem = try String(contentsOfFile: key.privateKey, encoding: .utf8)
        let claims = LookupAPIClaims(iss: key.issuerId, bid: key.bundleId, exp: now.addingTimeInterval(exp))
        return try await LookupAPIToken.sign(claims, keyId: key.keyId, privateKeyPEM: pem)
    }

    @Test func answersAppleShapedCodes() async throws {
        let server = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let key = try #require(client.credentials.lookup)
            #expect(try await client.merchant(.post, "/api/v1/orders", json: Self.order(number: "LK-1")).status == .created)
            let bearer = "Bearer \(try await Self.token(key))"

            let known = try await client.call(.get, "/inApps/v1/lookup/LK-1", headers: [.authorization: bearer])
            #expect(known.status == .ok)
            #expect(known.headers[.contentType] == "application/json")
            #expect(known.json["status"] == .integer(0))
            #expect(known.json["signedTransactions"]?.arrayValue?.count == 5)

            let unknown = try await client.call(.get, "/inApps/v1/lookup/LK-404", headers: [.authorization: bearer])
            #expect(unknown.status == .ok && unknown.json == ["status": .integer(1)])

            for headers: HTTPFields in [[:], [.authorization: "Bearer not-a-jwt"], [.authorization: "Bearer \(try await Self.token(key, exp: -5))"]] {
                let refused = try await client.call(.get, "/inApps/v1/lookup/LK-1", headers: headers)
                #expect(refused.status == .unauthorized && refused.body.isEmpty)
            }

            let malformed = try await client.call(.get, "/inApps/v1/lookup/%01", headers: [.authorization: bearer])
            #expect(malformed.status == .badRequest)
            #expect(malformed.headers[.contentType] == "application/json")
            #expect(malformed.json["errorCode"] == .integer(4_000_000))

            var last = malformed
            for _ in 0..<Self.rateLimit { last = try await client.call(.get, "/inApps/v1/lookup/LK-1", headers: [.authorization: bearer]) }
            #expect(last.status == .tooManyRequests)
            #expect(last.json["errorCode"] == .integer(4_290_000))
            #expect(last.headers[.retryAfter].flatMap(Int.init).map { $0 > 0 } == true)
        }
    }

    /// The payload of a compact JWS, unverified (the tests against Apple's library verify the signatures).
    static func payload(of jws: String) throws -> JSONValue {
        var base64 = jws.split(separator: ".")[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return try JSONValue.parse(Array(try #require(Data(base64Encoded: base64))))
    }

    @Test func l20_aStoredItemBeyondSixtyFourBitsIsLeftOutNeverSignedWithAnotherNumber() async throws {
        let server = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let key = try #require(client.credentials.lookup)
            let created = try await client.merchant(.post, "/api/v1/orders", json: Self.order(number: "LK-L20"))
            let details = try #require(created.json["orderDetails"])
            let (type, id) = (details["orderTypeIdentifier"]!.stringValue!, details["orderIdentifier"]!.stringValue!)
            // An order stored before the caps, written past validation: the audit's rows 349-351 between two items that fit,
            // the second at the largest price whose thousandths fit in 64 bits.
            let stored = try #require(try await client.store.order(type: type, id: id))
            var document = try JSONValue.parse(stored.document)
            document["lineItems"] = [
                ["title": "Fits", "sku": "FITS-1", "quantity": 2, "price": ["amount": "1.25", "currency": "USD"]],
                ["title": "Huge quantity", "sku": "QTY-1E30", "quantity": .number("1e30"), "price": ["amount": "21.00", "currency": "USD"]],
                ["title": "Huge price", "sku": "PRICE-26", "quantity": 1, "price": ["amount": "99999999999999999999999999.99", "currency": "USD"]],
                ["title": "Wrapping quantity", "sku": "QTY-9E18", "quantity": .number("9.3e18"), "price": ["amount": "1.00", "currency": "USD"]],
                ["title": "Largest price", "sku": "FITS-2", "quantity": 1, "price": ["amount": "9223372036854775.807", "currency": "USD"]],
            ]
            _ = try await client.store.updateOrder(
                type: type, id: id, expectedVersion: stored.version, document: document.serialized(), status: stored.status,
                orderNumber: "LK-L20", updatedAt: Date())

            let answer = try await client.call(.get, "/inApps/v1/lookup/LK-L20", headers: [.authorization: "Bearer \(try await Self.token(key))"])
            #expect(answer.status == .ok && answer.json["status"] == .integer(0), "\(answer.text)")
            let signed = try (answer.json["signedTransactions"]?.arrayValue ?? []).map { try Self.payload(of: $0.stringValue ?? "") }
            #expect(signed.map { $0["productId"]?.stringValue } == ["FITS-1", "FITS-2"], "the items beyond 64 bits are left out")
            #expect(signed.map { $0["quantity"] } == [.integer(2), .integer(1)])
            #expect(signed.map { $0["price"] } == [.integer(1250), .integer(Int(Int64.max))])
            // The items keep the transaction identifiers of their positions in the order.
            #expect(
                signed.map { $0["transactionId"]?.stringValue }
                    == [0, 4].map { TransactionIdentifier.derive(orderTypeIdentifier: type, orderIdentifier: id, lineItemIndex: $0) })
        }
    }

    @Test func mapsServerFaultsToAppleCodes() {
        let retryable = AppStoreAPIError(answering: OrderStoreError.unavailable(operation: "read", reason: "connection refused"))
        #expect(retryable == .internalRetryable && retryable.body?.code == 5_000_001)
        let fault = AppStoreAPIError(answering: OrderStoreError.corruptRecord(table: "orders", reason: "bad"))
        #expect(fault == .internal && fault.body?.code == 5_000_000)
        #expect(fault.response.status == .internalServerError && fault.response.headers[.contentType] == "application/json")
        let unauthorized = AppStoreAPIError(answering: AppStoreAPIError.unauthorized).response
        #expect(unauthorized.status == .unauthorized && unauthorized.headers[.contentType] == nil)
    }

    /// A support tool's token is verified once and reused until it expires; the key is still read on every lookup, so
    /// revoking it refuses the same token at once, and a token past its `exp` is refused though it verified before.
    @Test func aVerifiedTokenIsReusedUntilItExpiresAndRevocationHoldsAtOnce() async throws {
        let clock = TestClock()
        var server = try Self.server()
        server.now = { clock.date }
        defer { server.remove() }
        try await server.run { client in
            let key = try #require(client.credentials.lookup)
            #expect(try await client.merchant(.post, "/api/v1/orders", json: Self.order(number: "LK-T")).status == .created)
            let lookUp = { (token: String) in
                try await client.call(.get, "/inApps/v1/lookup/LK-T", headers: [.authorization: "Bearer \(token)"])
            }
            let shortLived = try await Self.token(key, exp: 60, now: clock.date)
            for _ in 0..<3 { #expect(try await lookUp(shortLived).json["status"] == .integer(0)) }
            // A token differing in its signature is not the cached one: it is verified, and fails.
            let forged = String(shortLived.dropLast(2)) + (shortLived.hasSuffix("AA") ? "BB" : "AA")
            #expect(try await lookUp(forged).status == .unauthorized)

            clock.advance(by: .seconds(61))
            #expect(try await lookUp(shortLived).status == .unauthorized, "expired, though it verified before")

            let token = try await Self.token(key, exp: 300, now: clock.date)
            #expect(try await lookUp(token).status == .ok)
            #expect(try await client.merchant(.delete, "/api/v1/lookup-keys/\(key.keyId)").status == .ok)
            #expect(try await lookUp(token).status == .unauthorized, "revoked: refused at once, cached or not")
        }
    }

    @Test func managesLookupKeys() async throws {
        let server = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let created = try await client.merchant(.post, "/api/v1/lookup-keys", json: ["bundleId": "com.example.support"])
            #expect(created.status == .created)
            #expect(created.headers[.cacheControl] == "no-store")
            let keyID = try #require(created.json["keyId"]?.stringValue)
            #expect(created.json["privateKey"]?.stringValue?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
            let listed = try await client.merchant(.get, "/api/v1/lookup-keys")
            #expect(listed.json["data"]?.arrayValue?.count == 2)
            #expect(!listed.text.contains("PRIVATE KEY"))
            #expect(try await client.merchant(.post, "/api/v1/lookup-keys", json: ["bundleId": "no spaces"]).status == .badRequest)
            let revoked = try await client.merchant(.delete, "/api/v1/lookup-keys/\(keyID)")
            #expect(revoked.status == .ok && revoked.json["revokedAt"]?.stringValue != nil)
            #expect(try await client.merchant(.delete, "/api/v1/lookup-keys/UNKNOWN123").status == .notFound)
            let root = try await client.merchant(.get, "/api/v1/lookup-keys/root-certificate")
            #expect(root.status == .ok && root.text.hasPrefix("-----BEGIN CERTIFICATE-----"))
            let lookup = try #require(client.credentials.lookup)
            #expect(try String(contentsOfFile: lookup.rootCertificate, encoding: .utf8) == root.text)
        }
    }

    @Test(.enabled(if: ExternalTools.pythonHasModule("appstoreserverlibrary"), "needs app-store-server-library (scripts/python-env)"))
    func appleLibraryLooksUpAndVerifies() async throws {
        let server = try Self.server()
        defer { server.remove() }
        let observed = try await server.run { client -> [String: JSONValue] in
            let key = try #require(client.credentials.lookup)
            #expect(try await client.merchant(.post, "/api/v1/orders", json: Self.order(number: "LK-7")).status == .created)
            let other = try await client.store.createMerchant(name: "Other Merchant")
            let otherKey = try await LookupKeyService(store: client.store).create(merchantID: other.id, bundleID: "com.example.other")
            let job: JSONValue = [
                "baseURL": .string("http://127.0.0.1:\(client.port)"),
                "key": [
                    "keyId": .string(key.keyId), "issuerId": .string(key.issuerId), "bundleId": .string(key.bundleId),
                    "privateKey": .string(try String(contentsOfFile: key.privateKey, encoding: .utf8)),
                ],
                "otherKey": [
                    "keyId": .string(otherKey.record.keyID), "issuerId": .string(otherKey.record.issuerID),
                    "bundleId": .string(otherKey.record.bundleID), "privateKey": .string(otherKey.privateKeyPEM),
                ],
                "rootCertificate": .string(try String(contentsOfFile: key.rootCertificate, encoding: .utf8)),
                "appAppleId": .integer(key.appAppleId), "orderNumber": "LK-7", "unknownOrderNumber": "LK-404", "rateLimit": .integer(Self.rateLimit),
            ]
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("lookup_judge.py").path
            let output = try await ExternalTools.run("/usr/bin/env", ["python3", script], input: job.serialized())
            return try #require(try JSONValue.parse(output).objectValue)
        }
        #expect(observed["known"] == ["status": "VALID", "count": .integer(5)])
        let transactions = try #require(observed["transactions"]?.arrayValue)
        #expect(transactions.compactMap { $0["productId"]?.stringValue } == (1...5).map { "SKU-\($0)" })
        #expect(transactions.map { $0["quantity"] } == (1...5).map { .integer($0) })
        #expect(transactions.map { $0["price"] } == (1...5).map { .integer($0 * 1000 + 250) })
        #expect(transactions.allSatisfy { $0["environment"] == "Production" && $0["currency"] == "USD" && $0["bundleId"] == "dev.ordertrack.demo" })
        #expect(Set(transactions.compactMap { $0["transactionId"]?.stringValue }).count == 5)
        #expect(observed["again"] == .bool(true))
        #expect(observed["unknown"]?["status"] == "INVALID")
        #expect(observed["unknown"]?["signedTransactions"] == .null)
        // Another merchant's valid key sees none of this merchant's orders; its key under this merchant's kid is refused.
        #expect(observed["otherMerchant"]?["status"] == "INVALID")
        #expect(observed["otherMerchant"]?["signedTransactions"] == .null)
        for refused in ["foreignKid", "expired", "wrongAudience", "tooLong"] {
            #expect(observed[refused]?["httpStatus"] == .integer(401), "\(refused)")
        }
        #expect(observed["malformed"]?["apiError"] == "GENERAL_BAD_REQUEST")
        #expect(observed["rateLimited"]?["httpStatus"] == .integer(429))
        #expect(observed["rateLimited"]?["apiError"] == "RATE_LIMIT_EXCEEDED")
    }
}

extension LookupEndpointTests {
    /// A number that several orders share (orders of two order types, or legacy orders from before numbers were unique)
    /// answers every one of them, never one at random.
    @Test func aNumberSeveralOrdersShareAnswersAllOfThem() async throws {
        let server = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let key = try #require(client.credentials.lookup)
            try await RestrictedKeyTests.addOrderType(client, server, merchantID: client.credentials.merchantID, RestrictedKeyTests.otherOrderType)
            #expect(try await client.merchant(.post, "/api/v1/orders", json: Self.order(number: "LK-7")).status == .created)
            var other = Self.order(number: "LK-7")
            other["orderTypeIdentifier"] = .string(RestrictedKeyTests.otherOrderType)
            #expect(try await client.merchant(.post, "/api/v1/orders", json: other).status == .created)
            let bearer = "Bearer \(try await Self.token(key))"
            let both = try await client.call(.get, "/inApps/v1/lookup/LK-7", headers: [.authorization: bearer])
            #expect(both.status == .ok)
            #expect(both.json["signedTransactions"]?.arrayValue?.count == 10, "five line items of each order")
        }
    }
}
