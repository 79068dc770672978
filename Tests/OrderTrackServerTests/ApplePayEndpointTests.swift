import ApplePay
import Foundation
import Logging
import OrderModel
import OrderTrackBenchmarks
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing
import X509

/// The Apple Pay endpoints over HTTP: payment identities, decryption and one-call checkout, with tokens signed
/// under a test PKI that carries Apple's marker extensions (trusted through the server's extra-root option).
@Suite struct ApplePayEndpointTests {
    static let dpan = "4111111111111111"

    static func server(_ fixtures: ApplePayBenchmark.Fixture...) throws -> TestServer {
        var server = try TestServer()
        server.applePay.additionalTrustRoots = fixtures.map(\.root)
        return server
    }

    static func identityBody(_ fixture: ApplePayBenchmark.Fixture) throws -> JSONValue {
        [
            "certificatePEM": .string(try fixture.merchantCertificate.serializeAsPEM().pemString),
            "privateKeyPEM": .string(fixture.merchantKey.pemRepresentation),
        ]
    }

    /// A token paying `amount` minor units of `currency` (ISO 4217 numeric), signed `age` seconds ago.
    static func token(_ fixture: ApplePayBenchmark.Fixture, amount: Int, currency: String = "840", age: TimeInterval = 0) throws -> JSONValue {
        let payload: JSONValue = [
            "applicationPrimaryAccountNumber": .string(dpan), "applicationExpirationDate": "301231", "currencyCode": .string(currency),
            "transactionAmount": .integer(amount), "deviceManufacturerIdentifier": "040010030273", "paymentDataType": "3DSecure",
            "paymentData": ["onlinePaymentCryptogram": "Af9x/QwAA/DjmU65oyc1MAABAAA=", "eciIndicator": "5"],
        ]
        return try fixture.token(payload: payload.serialized(), signingTime: Date().addingTimeInterval(-age))
    }

    @Test func paymentIdentitiesAreAddedListedAndDeleted() async throws {
        let first = try ApplePayBenchmark.Fixture(merchantIdentifier: "merchant.test.ordertrack")
        let second = try ApplePayBenchmark.Fixture(merchantIdentifier: "merchant.test.ordertrack")
        let server = try Self.server(first, second)
        defer { server.remove() }
        try await server.run { client in
            let added = try await client.merchant(.post, "/api/v1/apple_pay/payment-identities", json: try Self.identityBody(first))
            #expect(added.status == .created, "\(added.text)")
            #expect(added.json["merchantIdentifier"] == "merchant.test.ordertrack")
            #expect(added.json["publicKeyHash"]?.stringValue == Data(first.identity.publicKeyHash).base64EncodedString())
            #expect(added.json["notAfter"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339) != nil)
            let again = try await client.merchant(.post, "/api/v1/apple_pay/payment-identities", json: try Self.identityBody(first))
            #expect(again.json["id"] == added.json["id"], "the same certificate again is the same identity")

            var named = try Self.identityBody(second)
            named["merchantIdentifier"] = "merchant.test.other"
            let mismatch = try await client.merchant(.post, "/api/v1/apple_pay/payment-identities", json: named)
            #expect(mismatch.status == .unprocessableContent && mismatch.json["error"]?["code"] == "invalid_payment_identity")
            #expect(mismatch.json["error"]?["param"] == "merchantIdentifier")
            let garbage = try await client.merchant(
                .post, "/api/v1/apple_pay/payment-identities", json: ["certificatePEM": "not a certificate", "privateKeyPEM": "nor a key"])
            #expect(garbage.status == .unprocessableContent && garbage.json["error"]?["code"] == "invalid_payment_identity")
            let wrongKey = try await client.merchant(
                .post, "/api/v1/apple_pay/payment-identities",
                json: [
                    "certificatePEM": .string(try first.merchantCertificate.serializeAsPEM().pemString),
                    "privateKeyPEM": .string(second.merchantKey.pemRepresentation),
                ])
            #expect(wrongKey.status == .unprocessableContent, "\(wrongKey.text)")

            let rotated = try await client.merchant(.post, "/api/v1/apple_pay/payment-identities", json: try Self.identityBody(second))
            #expect(rotated.status == .created)
            let listed = try await client.merchant(.get, "/api/v1/apple_pay/payment-identities")
            #expect(listed.json["data"]?.arrayValue?.count == 2)
            #expect(!listed.text.contains("PRIVATE KEY"), "listing never shows a key")

            // During a rotation, tokens for either certificate decrypt.
            for fixture in [first, second] {
                let decrypted = try await client.merchant(.post, "/api/v1/apple_pay/decrypt", json: ["token": try Self.token(fixture, amount: 100)])
                #expect(decrypted.status == .ok, "\(decrypted.text)")
            }

            let id = try #require(added.json["id"]?.stringValue)
            #expect(try await client.merchant(.delete, "/api/v1/apple_pay/payment-identities/\(id)").status == .noContent)
            #expect(try await client.merchant(.delete, "/api/v1/apple_pay/payment-identities/\(id)").status == .notFound)
            #expect(try await client.merchant(.get, "/api/v1/apple_pay/payment-identities").json["data"]?.arrayValue?.count == 1)
            let retired = try await client.merchant(.post, "/api/v1/apple_pay/decrypt", json: ["token": try Self.token(first, amount: 100)])
            #expect(retired.json["error"]?["code"] == "no_matching_key")
        }
    }

    @Test func decryptAnswersThePayloadAndNamesEachFailedCheck() async throws {
        let fixture = try ApplePayBenchmark.Fixture(merchantIdentifier: "merchant.test.ordertrack")
        let server = try Self.server(fixture)
        let log = RecordingLogHandler.Entries()
        defer { server.remove() }
        try await server.run(logger: Logger(label: "apple-pay", factory: { _ in RecordingLogHandler(entries: log) })) { client in
            let none = try await client.merchant(.post, "/api/v1/apple_pay/decrypt", json: ["token": try Self.token(fixture, amount: 4200)])
            #expect(none.status == .unprocessableContent && none.json["error"]?["code"] == "no_matching_key")
            _ = try await client.merchant(.post, "/api/v1/apple_pay/payment-identities", json: try Self.identityBody(fixture))

            let token = try Self.token(fixture, amount: 4200)
            let decrypted = try await client.merchant(.post, "/api/v1/apple_pay/decrypt", json: ["token": token])
            #expect(decrypted.status == .ok, "\(decrypted.text)")
            #expect(decrypted.headers[.cacheControl] == "no-store")
            #expect(decrypted.json["transactionId"] == token["header"]?["transactionId"])
            #expect(decrypted.json["merchantIdentifier"] == "merchant.test.ordertrack")
            #expect(decrypted.json["version"] == "EC_v1")
            #expect(decrypted.json["paymentData"]?["applicationPrimaryAccountNumber"]?.stringValue == Self.dpan)
            #expect(decrypted.json["paymentData"]?["transactionAmount"] == 4200)

            // The whole ApplePayPayment.token object is accepted too.
            let wrapped: JSONValue = [
                "paymentData": token, "paymentMethod": ["displayName": "Visa 1111", "network": "Visa", "type": "debit"],
                "transactionIdentifier": .string(token["header"]?["transactionId"]?.stringValue?.uppercased() ?? ""),
            ]
            #expect(try await client.merchant(.post, "/api/v1/apple_pay/decrypt", json: ["token": wrapped]).status == .ok)

            var flipped = token
            var data = [UInt8](Data(base64Encoded: token["data"]?.stringValue ?? "") ?? Data())
            data[0] ^= 0x01
            flipped["data"] = .string(Data(data).base64EncodedString())
            var otherTransaction = token
            otherTransaction["header"]?["transactionId"] = .string(String(repeating: "ab", count: 32))
            let foreign = try ApplePayBenchmark.Fixture(merchantIdentifier: "merchant.test.ordertrack")
            var foreignSigned = try Self.token(foreign, amount: 4200)
            foreignSigned["header"]?["publicKeyHash"] = token["header"]?["publicKeyHash"]
            let cases: [(JSONValue, String)] = [
                (flipped, "invalid_signature"), (otherTransaction, "invalid_signature"),
                (try Self.token(fixture, amount: 4200, age: 600), "signing_time_out_of_range"),
                (foreignSigned, "untrusted_chain"), (["version": "EC_v1"], "malformed_token"),
            ]
            for (bad, code) in cases {
                let reply = try await client.merchant(.post, "/api/v1/apple_pay/decrypt", json: ["token": bad])
                #expect(reply.status == .unprocessableContent, "\(code): \(reply.text)")
                #expect(reply.json["error"]?["code"]?.stringValue == code, "\(reply.text)")
            }
            let notJSON = try await client.call(
                .post, "/api/v1/apple_pay/decrypt", headers: [.authorization: "Bearer \(client.apiKey)"], body: Array("{\"token\":".utf8))
            #expect(notJSON.status == .badRequest && notJSON.json["error"]?["code"] == "invalid_json")
            let missing = try await client.merchant(.post, "/api/v1/apple_pay/decrypt", json: ["tokn": [:]])
            #expect(missing.status == .badRequest && missing.json["error"]?["code"] == "token_missing")
            let anonymous = try await client.call(.post, "/api/v1/apple_pay/decrypt", body: (["token": token] as JSONValue).serialized())
            #expect(anonymous.status == .unauthorized)
        }
        #expect(log.messages(atLeast: .warning).contains { $0.contains("--apple-pay-root") }, "an extra trusted root is warned about at start")
    }

    @Test func checkoutCreatesTheOrderOncePerTransaction() async throws {
        let fixture = try ApplePayBenchmark.Fixture(merchantIdentifier: "merchant.test.ordertrack")
        var server = try Self.server(fixture)
        let log = RecordingLogHandler.Entries()
        server.logLevel = .trace
        defer { server.remove() }
        try await server.run(logger: Logger(label: "apple-pay", factory: { _ in RecordingLogHandler(entries: log, logLevel: .trace) })) {
            client in
            _ = try await client.merchant(.post, "/api/v1/apple_pay/payment-identities", json: try Self.identityBody(fixture))
            let token = try Self.token(fixture, amount: 4200)
            let order = SampleContent.order
            let paid = try await client.merchant(.post, "/api/v1/apple_pay/payments", json: ["token": token, "order": order])
            #expect(paid.status == .created, "\(paid.text)")
            #expect(paid.headers[.cacheControl] == "no-store")
            let details = try #require(paid.json["orderDetails"]?.objectValue)
            #expect(Set(details.keys) == ["orderTypeIdentifier", "orderIdentifier", "webServiceURL", "authenticationToken"])
            #expect(details["webServiceURL"] == .string(TestServer.publicURL + "/wallet"))
            #expect(paid.json["payment"]?["applicationPrimaryAccountNumber"]?.stringValue == Self.dpan)
            #expect(paid.json["transactionId"] == token["header"]?["transactionId"])
            #expect(paid.json["order"]?["orderNumber"] == order["orderNumber"])

            // Wallet can fetch the order with the details Apple Pay's completion hands it.
            let type = details["orderTypeIdentifier"]?.stringValue ?? ""
            let id = details["orderIdentifier"]?.stringValue ?? ""
            let fetched = try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: details["authenticationToken"]?.stringValue)
            #expect(fetched.status == .ok)

            let replay = try await client.merchant(.post, "/api/v1/apple_pay/payments", json: ["token": token, "order": order])
            #expect(replay.status == .ok, "\(replay.text)")
            #expect(replay.json["orderDetails"] == paid.json["orderDetails"])
            #expect(replay.json["payment"] == paid.json["payment"])
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.count == 1)

            var otherOrder = order
            otherOrder["orderNumber"] = "1002"
            let reused = try await client.merchant(.post, "/api/v1/apple_pay/payments", json: ["token": token, "order": otherOrder])
            #expect(reused.status == .conflict && reused.json["error"]?["code"] == "payment_already_used", "\(reused.text)")

            let short = try await client.merchant(
                .post, "/api/v1/apple_pay/payments", json: ["token": try Self.token(fixture, amount: 4199), "order": order])
            #expect(short.status == .unprocessableContent && short.json["error"]?["code"] == "amount_mismatch", "\(short.text)")
            let euros = try await client.merchant(
                .post, "/api/v1/apple_pay/payments", json: ["token": try Self.token(fixture, amount: 4200, currency: "978"), "order": order])
            #expect(euros.status == .unprocessableContent && euros.json["error"]?["code"] == "currency_mismatch", "\(euros.text)")
            var unpriced = order
            unpriced["payment"] = nil
            let noTotal = try await client.merchant(
                .post, "/api/v1/apple_pay/payments", json: ["token": try Self.token(fixture, amount: 4200), "order": unpriced])
            #expect(noTotal.status == .unprocessableContent && noTotal.json["error"]?["param"] == "payment.total", "\(noTotal.text)")
            let noOrder = try await client.merchant(.post, "/api/v1/apple_pay/payments", json: ["token": token])
            #expect(noOrder.status == .badRequest && noOrder.json["error"]?["code"] == "order_missing")
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.count == 1, "refused checkouts create nothing")
        }
        // Card data is never logged, and never stored: the database file holds neither the DPAN nor the cryptogram.
        let messages = log.messages(atLeast: .trace)
        #expect(!messages.isEmpty)
        #expect(!messages.contains { $0.contains(Self.dpan) || $0.contains("Af9x/QwAA") })
        if server.database == nil {
            let files = try FileManager.default.contentsOfDirectory(at: server.dataDirectory, includingPropertiesForKeys: nil)
            for file in files where file.lastPathComponent.hasPrefix("ordertrack.sqlite") {
                let bytes = try Data(contentsOf: file)
                #expect(bytes.range(of: Data(Self.dpan.utf8)) == nil, "\(file.lastPathComponent) holds the DPAN")
            }
        }
    }
}

extension ApplePayEndpointTests {
    /// M10: the payment is checked against the total the stored order shows, after the simplified vocabulary's
    /// `total` rewrote `payment.total`; a body naming two totals cannot store one the token did not pay.
    @Test func m10_theAmountPaidIsTheAmountStored() async throws {
        let fixture = try ApplePayBenchmark.Fixture(merchantIdentifier: "merchant.test.ordertrack")
        let server = try Self.server(fixture)
        defer { server.remove() }
        try await server.run { client in
            _ = try await client.merchant(.post, "/api/v1/apple_pay/payment-identities", json: try Self.identityBody(fixture))
            _ = try await client.merchant(.put, "/api/v1/order-defaults", json: ["paymentStatus": "paid"])
            func pay(_ order: JSONValue, amount: Int = 4200) async throws -> Client.Reply {
                try await client.merchant(
                    .post, "/api/v1/apple_pay/payments", json: ["token": try Self.token(fixture, amount: amount), "order": order])
            }
            var inflated = SampleContent.order
            inflated["total"] = ["label": "Total", "price": "999.00", "currencyCode": "USD"]
            let refused = try await pay(inflated)
            #expect(refused.status == .unprocessableContent && refused.json["error"]?["code"] == "amount_mismatch", "\(refused.text)")
            var yen = SampleContent.order
            yen["total"] = ["label": "Total", "price": "4200", "currencyCode": "JPY"]
            let otherCurrency = try await pay(yen)
            #expect(
                otherCurrency.status == .unprocessableContent && otherCurrency.json["error"]?["code"] == "currency_mismatch", "\(otherCurrency.text)")
            #expect(try await client.merchant(.get, "/api/v1/orders").json["data"]?.arrayValue?.isEmpty == true, "nothing stored")

            // The simplified form's own total is the one checked, and the one stored.
            var simplified = SampleContent.order
            simplified["payment"] = nil
            simplified["total"] = ["label": "Total", "price": "42.00", "currencyCode": "USD"]
            let paid = try await pay(simplified)
            #expect(paid.status == .created, "\(paid.text)")
            #expect(paid.json["order"]?["payment"]?["total"] == ["amount": .number("42.00"), "currency": "USD"])
            simplified["orderNumber"] = .string(SampleContent.uniqueNumber())
            #expect(try await pay(simplified, amount: 4199).json["error"]?["code"] == "amount_mismatch")
        }
    }

    /// The playground's copied curl runs as printed in development: the test token makes a simulated payment; production
    /// refuses it, naming the token.
    @Test func theTestTokenSimulatesAPaymentInDevelopmentOnly() async throws {
        var server = try TestServer()
        defer { server.remove() }
        let body: JSONValue = ["token": "tok_applepay_simulated", "order": SampleContent.order]
        try await server.run { client in
            let paid = try await client.merchant(.post, "/api/v1/apple_pay/payments", json: body)
            #expect(paid.status == .created, "\(paid.text)")
            #expect(paid.json["simulated"] == .bool(true))
            let details = try #require(paid.json["orderDetails"])
            let type = try #require(details["orderTypeIdentifier"]?.stringValue)
            let id = try #require(details["orderIdentifier"]?.stringValue)
            #expect(
                try await client.device(.get, "/wallet/v1/orders/\(type)/\(id)", token: details["authenticationToken"]?.stringValue).status == .ok)
        }
        server.developmentMode = false
        try await server.run { client in
            let refused = try await client.merchant(.post, "/api/v1/apple_pay/payments", json: body)
            #expect(refused.status == .badRequest)
            #expect(refused.json["error"]?["code"] == "test_token_not_allowed")
            #expect(refused.json["error"]?["param"] == "token")
        }
    }
}
