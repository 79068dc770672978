import CarrierTestSupport
import CarrierTracking
import Foundation
import HTTPTypes
import OrderModel
import OrderPersistence
import ServerTestSupport
import TestSupport
import Testing

@testable import OrderTrackServer

/// Issue #31, the HTTP side: merchants connect providers under `/api/v1/carrier-connections`, and each provider's
/// signed webhooks are verified on the raw body, stored once and answered at once. Real HTTP over loopback, on the
/// suite's store; what got stored is read back with the store's `recentCarrierEvents`.
@Suite(.serialized) struct CarrierConnectionTests {
    /// Creates a connection with the merchant's secret key (or `key`); returns the answer.
    static func connect(_ client: Client, _ body: JSONValue, key: String? = nil) async throws -> Client.Reply {
        try await RestrictedKeyTests.call(client, key ?? client.apiKey, .post, "/api/v1/carrier-connections", json: body)
    }

    @Test func connectionsAreCreatedListedAndDeletedAndNeverShowTheirSecret() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let created = try await Self.connect(client, ["provider": "aftership", "secret": "as-secret-1234"])
            #expect(created.status == .created, "\(created.text)")
            #expect(created.headers[.cacheControl] == "no-store")
            let id = try #require(created.json["id"]?.stringValue)
            #expect(id.hasPrefix("cc_") && id.count == 27 && Identifiers.isValid(id))
            #expect(created.json["webhookURL"] == .string("\(TestServer.publicURL)/carriers/aftership/\(id)"))
            #expect(created.json["createdAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339) != nil)
            #expect(created.json["secret"] == nil && !created.text.contains("as-secret-1234"))

            let shipEngine = try await Self.connect(client, ["provider": "shipengine", "statusMap": ["EX/RETURNED_TO_SENDER": "issue"]])
            #expect(shipEngine.status == .created, "\(shipEngine.text)")
            #expect(shipEngine.json["jwksURL"] == .null && shipEngine.json["statusMap"] == ["EX/RETURNED_TO_SENDER": "issue"])
            let ownKeys = try await Self.connect(client, ["provider": "shipengine", "jwksURL": "https://API.shipengine.com/jwks?v=2"])
            #expect(ownKeys.status == .created && ownKeys.json["jwksURL"] == "https://API.shipengine.com/jwks?v=2", "\(ownKeys.text)")

            let listed = try await client.merchant(.get, "/api/v1/carrier-connections")
            #expect(listed.status == .ok)
            let data = try #require(listed.json["data"]?.arrayValue)
            #expect(
                data.compactMap { $0["id"]?.stringValue }
                    == [id, shipEngine.json["id"]?.stringValue, ownKeys.json["id"]?.stringValue].compactMap { $0 })
            #expect(data.allSatisfy { $0["secret"] == nil } && !listed.text.contains("as-secret-1234"))

            let missing = try await client.merchant(.delete, "/api/v1/carrier-connections/cc_nothing")
            #expect(missing.status == .notFound)
            #expect(try await client.merchant(.delete, "/api/v1/carrier-connections/\(id)").status == .noContent)
            #expect(try await client.merchant(.delete, "/api/v1/carrier-connections/\(id)").status == .notFound)
            let after = try await client.merchant(.get, "/api/v1/carrier-connections").json["data"]?.arrayValue ?? []
            #expect(!after.contains { $0["id"] == .string(id) } && after.count == 2)
        }
    }

    @Test func invalidConnectionsAre400NamingTheField() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let cases: [(JSONValue, String, String)] = [
                (["provider": "fedex", "secret": "s"], "provider", "carrier_connection_invalid"),
                (["secret": "s"], "provider", "carrier_connection_invalid"),
                (["provider": "aftership"], "secret", "carrier_connection_invalid"),
                (["provider": "easypost", "secret": ""], "secret", "carrier_connection_invalid"),
                (["provider": "generic", "secret": .string(String(repeating: "s", count: 513))], "secret", "carrier_connection_invalid"),
                (["provider": "generic", "secret": 42], "secret", "carrier_connection_invalid"),
                (["provider": "shipengine", "secret": "s"], "secret", "carrier_connection_invalid"),
                (["provider": "shippo", "secret": "s", "jwksURL": "https://api.shipengine.com/jwks"], "jwksURL", "carrier_connection_invalid"),
                (["provider": "shipengine", "jwksURL": "https://keys.attacker.example/jwks"], "jwksURL", "carrier_connection_invalid"),
                (["provider": "shipengine", "jwksURL": "http://api.shipengine.com/jwks"], "jwksURL", "carrier_connection_invalid"),
                (["provider": "shipengine", "jwksURL": "https://user@api.shipengine.com/jwks"], "jwksURL", "carrier_connection_invalid"),
                (
                    ["provider": "aftership", "secret": "s", "statusMap": ["InTransit": "flying"]], "statusMap.InTransit",
                    "carrier_connection_invalid"
                ),
                (["provider": "aftership", "secret": "s", "statusMap": ["InTransit": 3]], "statusMap", "carrier_connection_invalid"),
                (["provider": "aftership", "secret": "s", "statusMap": "none"], "statusMap", "carrier_connection_invalid"),
                (["provider": "aftership", "secret": "s", "webhook": "x"], "webhook", "field_unknown"),
            ]
            for (body, param, code) in cases {
                let reply = try await CarrierConnectionTests.connect(client, body)
                #expect(reply.status == .badRequest, "\(body.serialized())")
                #expect(reply.json["error"]?["param"] == .string(param), "\(body.serialized()): \(reply.text)")
                #expect(reply.json["error"]?["code"] == .string(code), "\(reply.text)")
            }
            #expect(try await client.merchant(.get, "/api/v1/carrier-connections").json["data"] == [], "nothing was stored")
        }
    }

    @Test func restrictedKeysNeedTheCarrierScopesAndMerchantsSeeOnlyTheirOwn() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let readOnly = try await RestrictedKeyTests.createKey(client, ["name": "reader", "scopes": ["carrier-connections:read"]])
            let writer = try await RestrictedKeyTests.createKey(client, ["name": "writer", "scopes": ["carrier-connections:write"]])
            let other = try await RestrictedKeyTests.createKey(client, ["name": "orders", "scopes": ["orders:write"]])

            for key in [readOnly.secret, other.secret] {
                let refused = try await Self.connect(client, ["provider": "generic", "secret": "s"], key: key)
                #expect(refused.status == .forbidden && RestrictedKeyTests.error(refused).code == "scope_missing")
                #expect(RestrictedKeyTests.error(refused).message.contains("\"carrier-connections:write\""))
            }
            let listRefused = try await RestrictedKeyTests.call(client, other.secret, .get, "/api/v1/carrier-connections")
            #expect(listRefused.status == .forbidden && RestrictedKeyTests.error(listRefused).message.contains("\"carrier-connections:read\""))

            let made = try await Self.connect(client, ["provider": "generic", "secret": "s"], key: writer.secret)
            #expect(made.status == .created)
            let id = try #require(made.json["id"]?.stringValue)
            #expect(
                try await RestrictedKeyTests.call(client, readOnly.secret, .get, "/api/v1/carrier-connections").json["data"]?.arrayValue?.count == 1)
            let readerDelete = try await RestrictedKeyTests.call(client, readOnly.secret, .delete, "/api/v1/carrier-connections/\(id)")
            #expect(readerDelete.status == .forbidden)

            // Merchant B neither sees nor deletes merchant A's connection.
            let (_, otherMerchantKey) = try await Administration(store: client.store).createMerchant(name: "Other Shop")
            let foreignList = try await RestrictedKeyTests.call(client, otherMerchantKey, .get, "/api/v1/carrier-connections")
            #expect(foreignList.status == .ok && foreignList.json["data"] == [])
            let foreignDelete = try await RestrictedKeyTests.call(client, otherMerchantKey, .delete, "/api/v1/carrier-connections/\(id)")
            #expect(foreignDelete.status == .notFound)
            #expect(try await client.store.carrierConnection(id: id) != nil)
            #expect(try await RestrictedKeyTests.call(client, writer.secret, .delete, "/api/v1/carrier-connections/\(id)").status == .noContent)
        }
    }
}

/// The webhook route: each provider's scheme with signatures openssl computed, everything refused stores nothing.
@Suite(.serialized, .enabled(if: ExternalTools.hasOpenSSL, "needs the openssl command-line tool"))
struct CarrierWebhookTests {
    static let secret = "whsec-test-0123456789"

    /// The headers `provider` sends with `body`, signed with `secret` at `time`.
    static func signed(_ provider: CarrierProvider, _ body: [UInt8], secret: String = secret, at time: Date = Date()) throws -> HTTPFields {
        var headers: HTTPFields = [.contentType: "application/json"]
        let t = Int(time.timeIntervalSince1970)
        switch provider {
        case .aftership:
            headers[HTTPField.Name("aftership-hmac-sha256")!] = try OpenSSLHMAC.base64(key: secret, message: body)
            headers[HTTPField.Name("As-Webhook-Version")!] = "2026-07"
        case .easypost:
            headers[HTTPField.Name("X-Hmac-Signature")!] = "hmac-sha256-hex=" + (try OpenSSLHMAC.hex(key: secret, message: body))
        case .shippo:
            headers[HTTPField.Name("Shippo-Auth-Signature")!] = "t=\(t),v1=\(try OpenSSLHMAC.hex(key: secret, message: Array("\(t).".utf8) + body))"
        case .generic:
            headers[HTTPField.Name("OrderTrack-Signature")!] = "t=\(t),v1=\(try OpenSSLHMAC.hex(key: secret, message: Array("\(t).".utf8) + body))"
        case .shipengine:
            Issue.record("ShipEngine signs with RSA: see shipEngine(_:_:)")
        }
        return headers
    }

    /// Makes a connection of `provider` for the demo merchant; returns its webhook path.
    static func connect(_ client: Client, _ provider: CarrierProvider, secret: String? = secret) async throws -> String {
        var body: JSONValue = ["provider": .string(provider.rawValue)]
        if let secret { body["secret"] = .string(secret) }
        let created = try await CarrierConnectionTests.connect(client, body)
        #expect(created.status == .created, "\(created.text)")
        let url = try #require(created.json["webhookURL"]?.stringValue)
        return String(url.dropFirst(TestServer.publicURL.count))
    }

    static func events(_ client: Client) async throws -> [CarrierEventRecord] {
        try await client.store.recentCarrierEvents(merchantID: client.credentials.merchantID, limit: 100)
    }

    static let deliveries: [(CarrierProvider, String)] = [
        (.aftership, "aftership-tracking-update"), (.easypost, "easypost-tracker-updated"), (.shippo, "shippo-track-updated"),
        (.generic, "generic-event"),
    ]

    @Test func eachProviderIsVerifiedStoredOnceAndAnswered() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            for (provider, fixture) in Self.deliveries {
                let path = try await Self.connect(client, provider)
                let body = try Fixture.scannedInThePast(fixture)
                let headers = try Self.signed(provider, body)
                let accepted = try await client.call(.post, path, headers: headers, body: body)
                #expect(accepted.status == .accepted, "\(provider): \(accepted.text)")
                #expect(accepted.json["status"] == "accepted")
                let id = try #require(accepted.json["id"], "\(provider)")

                let stored = try #require(try await Self.events(client).first)
                let connectionID = String(path.split(separator: "/").last ?? "")
                guard case .event(let parsed) = try CarrierWebhookParser.parse(body, provider: provider, headers: CarrierRequestHeaders([:]))
                else { throw CarrierWebhookError(.malformedBody, "fixture \(fixture) is not an event") }
                #expect(
                    stored.id == id.numberLiteral.flatMap { Int64($0) } && stored.connectionID == connectionID && stored.provider == provider.rawValue
                )
                // No order has the number: the worker, woken by the delivery, may already have found nothing.
                #expect(
                    stored.idempotencyKey == parsed.idempotencyKey && [.pending, .unmatched].contains(stored.state),
                    "\(provider): \(stored.state) \(stored.outcome ?? "")")
                #expect(stored.trackingNumber == CarrierMatching.normalizedTrackingNumber(parsed.trackingNumber))
                #expect(
                    stored.carrier == parsed.carrierCode && stored.orderReference == parsed.orderReference && stored.occurredAt == parsed.occurredAt)
                // The worker reads the stored event back whole, with what the headers added (AfterShip's payload version).
                var expected = parsed
                if provider == .aftership { expected.webhookVersion = "2026-07" }
                #expect(try CarrierEvent(storedForm: stored.event) == expected)

                // A redelivery (the provider retrying, or a replay of a signed body) stores nothing new.
                let again = try await client.call(.post, path, headers: try Self.signed(provider, body), body: body)
                #expect(again.status == .ok && again.json == ["status": "duplicate", "id": id], "\(again.text)")

                let wrong = try await client.call(.post, path, headers: try Self.signed(provider, body, secret: "not-the-secret"), body: body)
                #expect(wrong.status == .unauthorized && wrong.json["error"]?["code"] == "signature_invalid", "\(wrong.text)")
                #expect(wrong.json["error"]?["message"]?.stringValue?.contains("does not match the body") == true, "\(wrong.text)")
                let unsigned = try await client.call(.post, path, headers: [.contentType: "application/json"], body: body)
                #expect(unsigned.status == .unauthorized && unsigned.json["error"]?["message"]?.stringValue?.contains("missing") == true)
                var tampered = body
                tampered.append(0x20)
                let changed = try await client.call(.post, path, headers: headers, body: tampered)
                #expect(changed.status == .unauthorized)
            }
            let stored = try await Self.events(client)
            #expect(stored.count == Self.deliveries.count, "one row per event: \(stored.map(\.idempotencyKey))")
        }
    }

    @Test func staleTimestampsAndIgnoredOrMalformedDeliveriesStoreNothing() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let generic = try await Self.connect(client, .generic)
            let body = try Fixture.bytes("generic-event")
            let stale = try await client.call(
                .post, generic, headers: try Self.signed(.generic, body, at: Date().addingTimeInterval(-301)), body: body)
            #expect(stale.status == .unauthorized && stale.json["error"]?["message"]?.stringValue?.contains("signed time") == true, "\(stale.text)")

            let shippo = try await Self.connect(client, .shippo)
            let transaction = try Fixture.bytes("shippo-transaction-created")
            let ignored = try await client.call(.post, shippo, headers: try Self.signed(.shippo, transaction), body: transaction)
            #expect(ignored.status == .ok && ignored.json["status"] == "ignored", "\(ignored.text)")
            #expect(ignored.json["reason"]?.stringValue?.isEmpty == false)
            let afterShip = try await Self.connect(client, .aftership)
            let pending = try Fixture.bytes("aftership-pending-time")
            let alsoIgnored = try await client.call(.post, afterShip, headers: try Self.signed(.aftership, pending), body: pending)
            #expect(alsoIgnored.status == .ok && alsoIgnored.json["status"] == "ignored", "\(alsoIgnored.text)")

            // Signed, so verified, but not an event: 400 naming what is wrong.
            let incomplete = Array(#"{"id":"evt-9","carrier":"dhl","status":"onTheWay","occurredAt":"2026-11-25T06:45:00Z"}"#.utf8)
            let malformed = try await client.call(.post, generic, headers: try Self.signed(.generic, incomplete), body: incomplete)
            #expect(malformed.status == .badRequest && malformed.json["error"]?["code"] == "carrier_event_invalid", "\(malformed.text)")
            #expect(malformed.json["error"]?["message"]?.stringValue?.contains("trackingNumber") == true, "\(malformed.text)")
            let notJSON = Array("tracking!".utf8)
            let garbage = try await client.call(.post, generic, headers: try Self.signed(.generic, notJSON), body: notJSON)
            #expect(garbage.status == .badRequest, "\(garbage.text)")

            #expect(try await Self.events(client).isEmpty)
        }
    }

    @Test func unknownDeletedAndMismatchedConnectionsAre404AndLargeBodies413() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let path = try await Self.connect(client, .generic)
            let id = String(path.split(separator: "/").last ?? "")
            let body = try Fixture.bytes("generic-event")
            let headers = try Self.signed(.generic, body)
            for wrongPath in ["/carriers/generic/cc_unknown", "/carriers/aftership/\(id)", "/carriers/fedex/\(id)"] {
                let reply = try await client.call(.post, wrongPath, headers: headers, body: body)
                #expect(reply.status == .notFound && reply.json["error"]?["message"] == "no such carrier connection", "\(wrongPath): \(reply.text)")
            }
            let tooLarge = [UInt8](repeating: 0x20, count: CarrierWebhookParser.maximumBodySize + 1)
            let refused = try await client.call(.post, path, headers: try Self.signed(.generic, tooLarge), body: tooLarge)
            #expect(refused.status == .contentTooLarge, "\(refused.text)")

            // Accepted once (so this instance holds the connection in memory), then deleted: refused at once.
            #expect(try await client.call(.post, path, headers: headers, body: body).status == .accepted)
            #expect(try await client.merchant(.delete, "/api/v1/carrier-connections/\(id)").status == .noContent)
            var second = try JSONValue.parse(body)
            second["id"] = "evt-after-delete"
            let secondBody = second.serialized()
            let afterDelete = try await client.call(.post, path, headers: try Self.signed(.generic, secondBody), body: secondBody)
            #expect(afterDelete.status == .notFound, "\(afterDelete.text)")
            #expect(try await Self.events(client).isEmpty, "the connection's events went with it")
        }
    }

    /// Keys served from memory, counting fetches.
    final class MemoryKeySetFetcher: KeySetFetcher, @unchecked Sendable {
        let document: [UInt8]
        private let lock = NSLock()
        private var fetched: [URL] = []

        init(_ document: [UInt8]) { self.document = document }

        var fetches: [URL] { lock.withLock { fetched } }

        func fetch(_ url: URL, limit: Int, timeout: Duration) async throws -> [UInt8] {
            lock.withLock { fetched.append(url) }
            return document
        }
    }

    /// ShipEngine's headers for `body`, signed by `key` as `kid` at `time`.
    static func shipEngine(_ key: OpenSSLRSAKey, _ body: [UInt8], kid: String = "se-key-1", at time: Date = Date()) throws -> HTTPFields {
        let timestamp = DateTimeFormat.formatRFC3339(time)
        return [
            .contentType: "application/json", HTTPField.Name("x-shipengine-rsa-sha256-key-id")!: kid,
            HTTPField.Name("x-shipengine-rsa-sha256-signature")!: try key.sign(Array("\(timestamp).".utf8) + body),
            HTTPField.Name("x-shipengine-timestamp")!: timestamp,
        ]
    }

    /// Each provider, from its signed webhook to the order's devices: a merchant connects it, pastes the webhook URL, and
    /// the order whose shipment has the tracking number follows the parcel with no code of the merchant's.
    @Test func eachProviderMovesItsOrderAndPushesItsDevice() async throws {
        let apns = try await LocalAPNs.start()
        let key = try OpenSSLRSAKey.shared.get()
        var server = try TestServer(push: apns.push())
        server.carriers.keySetFetcher = MemoryKeySetFetcher(key.jwks)
        defer { server.remove() }
        try await server.run { client in
            let providers: [(CarrierProvider, String)] = Self.deliveries + [(.shipengine, "shipengine-track")]
            for (index, (provider, fixture)) in providers.enumerated() {
                // A scan dated ahead of the server's clock is refused (below).
                let body = try Fixture.scannedInThePast(fixture)
                guard case .event(let event) = try CarrierWebhookParser.parse(body, provider: provider, headers: CarrierRequestHeaders([:])),
                    case .status(let expected, _) = CarrierStatusMap.defaults(for: provider).outcome(for: event)
                else { throw CarrierWebhookError(.malformedBody, "fixture \(fixture) is not a mapped event") }
                // The merchant's order carries the number as its own system prints it.
                var content = SampleContent.order
                content["fulfillments"] = [
                    [
                        "fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing",
                        "trackingNumber": .string(event.trackingNumber.lowercased()),
                    ]
                ]
                let order = try await client.createOrder(content)
                let pushToken = String(format: "%064x", index + 1)
                let registered = try await client.device(
                    .post, "/wallet/v1/devices/device-\(index)/registrations/\(order.type)/\(order.id)", token: order.token,
                    json: ["pushToken": .string(pushToken)])
                #expect(registered.status == .created)

                let path = try await Self.connect(client, provider, secret: provider == .shipengine ? nil : Self.secret)
                let headers = provider == .shipengine ? try Self.shipEngine(key, body) : try Self.signed(provider, body)
                let accepted = try await client.call(.post, path, headers: headers, body: body)
                #expect(accepted.status == .accepted, "\(provider): \(accepted.text)")

                let pushed = try await apns.server.waitForPushes(count: index + 1, timeout: .seconds(20))
                #expect(pushed.contains { $0.deviceToken == pushToken && $0.topic == order.type }, "\(provider)")
                let current = try await client.merchant(.get, order.path)
                let fulfillment = try #require((current.json["order"] ?? current.json)["fulfillments"]?.arrayValue?.first)
                #expect(fulfillment["status"] == .string(expected.rawValue), "\(provider): \(fulfillment)")
                #expect(current.headers[.eTag] == "\"2\"", "\(provider): one event, one version")
                let history = try await client.merchant(.get, "\(order.path)/history").json["data"]?.arrayValue?.first
                #expect(history?["keyName"] == .string("carrier:\(provider.rawValue)"), "\(provider): \(history ?? .null)")
            }

            // A scan dated ahead of the server's clock would make every real scan before it look stale: refused, visibly.
            let path = try await Self.connect(client, .generic)
            let order = try await client.createOrder(CarrierWorkerTests.order(trackingNumber: "FUTURE-1"))
            let body = CarrierWorkerTests.event(trackingNumber: "FUTURE-1", status: "delivered", at: Date().addingTimeInterval(2 * 3600)).serialized()
            let accepted = try await client.call(.post, path, headers: try Self.signed(.generic, body), body: body)
            let receipt = CarrierEventReceipt(id: try #require(accepted.json["id"]?.numberLiteral.flatMap { Int64($0) }), isNew: true)
            let future = try await CarrierWorkerTests.finished(client, merchantID: client.credentials.merchantID, receipt)
            #expect(future.state == .failed && future.outcome?.contains("more than an hour after the server's clock") == true)
            #expect(try await client.merchant(.get, order.path).headers[.eTag] == "\"1\"")
        }
        try await apns.stop()
    }

    @Test func shipEngineIsVerifiedWithFetchedKeysAndInventedKeyIDsFetchNothing() async throws {
        let key = try OpenSSLRSAKey.shared.get()
        let fetcher = MemoryKeySetFetcher(key.jwks)
        var server = try TestServer()
        server.carriers.keySetFetcher = fetcher
        defer { server.remove() }
        try await server.run { client in
            let path = try await Self.connect(client, .shipengine, secret: nil)
            let body = try Fixture.bytes("shipengine-track")
            let accepted = try await client.call(.post, path, headers: try Self.shipEngine(key, body), body: body)
            #expect(accepted.status == .accepted, "\(accepted.text)")
            #expect(fetcher.fetches == [CarrierConfiguration.defaultJWKSURL])
            // The idempotency key of a provider without event ids is the body's hash: the same body is a duplicate.
            #expect(try await client.call(.post, path, headers: try Self.shipEngine(key, body), body: body).status == .ok)

            for kid in ["invented-1", "invented-2", "invented-3"] {
                let refused = try await client.call(.post, path, headers: try Self.shipEngine(key, body, kid: kid), body: body)
                #expect(
                    refused.status == .unauthorized && refused.json["error"]?["message"]?.stringValue?.contains("no key") == true, "\(refused.text)")
            }
            #expect(fetcher.fetches.count == 1, "unknown key ids refetch at most once a minute")
            #expect(try await Self.events(client).count == 1)
        }
    }
}

/// The ShipEngine key cache on a clock the test moves.
@Suite(.enabled(if: ExternalTools.hasOpenSSL, "needs the openssl command-line tool"))
struct ShipEngineKeysTests {
    @Test func setsAreKeptForTheirLifetimeAndUnknownKeysRefetchAtMostOncePerInterval() async throws {
        let key = try OpenSSLRSAKey.shared.get()
        let fetcher = CarrierWebhookTests.MemoryKeySetFetcher(key.jwks)
        let clock = TestClock()
        let configuration = CarrierConfiguration()
        let keys = ShipEngineKeys(configuration: configuration, fetcher: fetcher, clock: ServerClock(clock, startingAt: Date()))
        let url = CarrierConfiguration.defaultJWKSURL

        #expect(try await keys.keySet(at: url, containing: "se-key-1").keys["se-key-1"] != nil)
        _ = try await keys.keySet(at: url, containing: "se-key-1")
        _ = try await keys.keySet(at: url, containing: "invented")
        #expect(fetcher.fetches.count == 1, "a known key is served from memory; an unknown one waits for the interval")

        clock.advance(by: configuration.keySetRefetchInterval)
        #expect(try await keys.keySet(at: url, containing: "invented").keys["invented"] == nil)
        _ = try await keys.keySet(at: url, containing: "invented-again")
        #expect(fetcher.fetches.count == 2, "one refetch per interval, however many key ids are invented")

        clock.advance(by: configuration.keySetLifetime)
        _ = try await keys.keySet(at: url, containing: "se-key-1")
        #expect(fetcher.fetches.count == 3, "a set past its lifetime is fetched again")

        do {
            _ = try await keys.keySet(at: URL(string: "https://keys.attacker.example/jwks")!, containing: "se-key-1")
            Issue.record("a URL off the allow-list was used")
        } catch let error as CarrierWebhookError {
            #expect(error.code == .notConfigured)
        }
        #expect(fetcher.fetches.count == 3, "a URL off the allow-list is never fetched")
    }
}

/// `ordertrack_carrier_events_pending` is counted when `/metrics` is read, at most once a second.
struct CarrierInboxMetricsTests {
    @Test func theBacklogIsCountedWhenReadAtMostOnceASecond() async throws {
        let clock = TestClock()
        let store = try await SQLOrderStore.inMemory()
        let metrics = PushMetrics()
        let inbox = CarrierInboxMetrics(registry: metrics.registry, store: store, clock: ServerClock(clock, startingAt: Date()))
        func rendered() -> String? {
            String(decoding: metrics.render(), as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("ordertrack_carrier_events_pending ") }
                .map(String.init)
        }
        await inbox.refresh()
        #expect(rendered() == "ordertrack_carrier_events_pending 0.0")

        let merchant = try await store.createMerchant(name: "Carrier Metrics")
        try await store.addCarrierConnection(
            CarrierConnectionRecord(id: "conn-m", merchantID: merchant.id, provider: "generic", secret: "s", createdAt: Date()))
        for key in ["a", "b"] {
            _ = try await store.receiveCarrierEvent(
                IncomingCarrierEvent(
                    connectionID: "conn-m", idempotencyKey: key, trackingNumber: "T1", carrier: nil, orderReference: nil, occurredAt: Date(),
                    event: Array("{}".utf8)))
        }
        await inbox.refresh()
        #expect(rendered() == "ordertrack_carrier_events_pending 0.0", "counted less than a second ago")
        clock.advance(by: .seconds(1))
        await inbox.refresh()
        #expect(rendered() == "ordertrack_carrier_events_pending 2.0")
        try await store.shutdown()
    }
}
