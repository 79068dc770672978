import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import OrderModel
import ServerTestSupport
import Synchronization
import TestSupport
import Testing

@testable import OrderPersistence
@testable import OrderTrackServer

/// Webhooks to merchants (issue #32): endpoints over the API, deliveries to a receiver on loopback, signatures checked
/// by Python's hmac, retries and disabling on the server's held clock (no real waiting for backoff), rotation, leases,
/// the outbound address policy and tenant isolation.
@Suite(.serialized)
struct WebhookTests {
    /// A server on a clock that stands still until the test moves it.
    static func server() throws -> (TestServer, TestClock) {
        let clock = TestClock()
        var server = try TestServer()
        server.clock = ServerClock(clock, startingAt: Date())
        return (server, clock)
    }

    /// Moves the held clock by `step` until `condition` holds, within 60 s of real time: the worker's poll sleeps on the
    /// clock, so every step wakes it.
    static func advance(_ clock: TestClock, by step: Duration, until condition: () async throws -> Bool) async throws {
        let met = try await Poll.until(timeout: .seconds(60)) {
            if try await condition() { return true }
            clock.advance(by: step)
            return false
        }
        #expect(met, "the condition did not hold within 60 s")
    }

    static func create(_ client: Client, url: String, events: [JSONValue] = ["*"]) async throws -> (id: String, secret: String) {
        let created = try await client.merchant(.post, "/api/v1/webhook-endpoints", json: ["url": .string(url), "events": .array(events)])
        #expect(created.status == .created, "\(created.text)")
        return (try #require(created.json["id"]?.stringValue), try #require(created.json["secret"]?.stringValue))
    }

    /// Appends events as the store's writers do, in one transaction (with the observers told after its commit).
    static func append(_ client: Client, _ events: [NewEvent]) async throws {
        let store = try #require(client.store as? SQLOrderStore)
        try await store.write("append test events") { db in try await SQLOrderStore.appendEvents(db, events, at: store.now()) }
    }

    static func deliveries(_ client: Client, _ id: String, key: String? = nil) async throws -> [JSONValue] {
        try await RestrictedKeyTests.call(client, key ?? client.apiKey, .get, "/api/v1/webhook-endpoints/\(id)/deliveries?limit=100")
            .json["data"]?.arrayValue ?? []
    }

    /// Checks each request's `OrderTrack-Signature` with Python's hmac: every `v1=` against `secrets` in order.
    static func verifyWithPython(_ requests: [ReceivedRequest], secrets: [String]) throws {
        let input: JSONValue = .array(
            requests.map { ["header": .string($0.header("OrderTrack-Signature") ?? ""), "body": .string(String(decoding: $0.body, as: UTF8.self))] })
        let script = """
            import hashlib, hmac, json, sys
            secrets = \(JSONValue.array(secrets.map(JSONValue.string)).serializedString())
            for item in json.load(sys.stdin):
                items = [part.split("=", 1) for part in item["header"].split(",")]
                t = [v for k, v in items if k == "t"][0]
                sigs = [v for k, v in items if k == "v1"]
                assert len(sigs) == len(secrets), (sigs, secrets)
                for sig, secret in zip(sigs, secrets):
                    want = hmac.new(secret.encode(), (t + "." + item["body"]).encode(), hashlib.sha256).hexdigest()
                    assert hmac.compare_digest(want, sig), "bad signature"
            print("ok")
            """
        let output = try ExternalTools.python(script, input: input.serialized())
        #expect(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }

    @Test func everyEventTypeReachesTheReceiverSignedInSequenceOrder() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let (server, clock) = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let endpoint = try await Self.create(client, url: "http://127.0.0.1:\(receiver.port)/hooks?shop=1")
            let merchantID = client.credentials.merchantID
            let events = EventType.allCases.map { NewEvent(merchantID: merchantID, type: $0, order: nil, data: ["n": .string($0.rawValue)]) }
            try await Self.append(client, events)
            try await Self.advance(clock, by: .seconds(1)) { receiver.requests.count >= events.count }
            let requests = receiver.requests
            #expect(requests.compactMap { (try? JSONValue.parse($0.body))?["type"]?.stringValue } == EventType.allCases.map(\.rawValue))
            for request in requests {
                #expect(request.head.uri == "/hooks?shop=1" && request.head.method == .POST)
                #expect(request.header("Content-Type") == "application/json" && request.header("User-Agent") == "OrderTrack-Webhooks/1")
                let body = try JSONValue.parse(request.body)
                #expect(request.header("OrderTrack-Event-Id") == body["id"]?.stringValue && body["createdAt"] != nil && body["data"]?["n"] != nil)
            }
            try Self.verifyWithPython(requests, secrets: [endpoint.secret])
            // The same shape as the events API.
            let first = try #require(requests.first)
            let event = try await client.merchant(.get, "/api/v1/events/\(first.header("OrderTrack-Event-Id") ?? "")")
            #expect(try JSONValue.parse(first.body) == event.json)
            // The last delivery is logged just after its answer arrives.
            var log: [JSONValue] = []
            try await Self.advance(clock, by: .zero) {
                log = try await Self.deliveries(client, endpoint.id)
                return log.count == events.count
            }
            #expect(log.count == events.count && log.allSatisfy { $0["status"] == "succeeded" && $0["attempts"] == 1 && $0["responseStatus"] == 200 })
            #expect(log.first?["eventType"] == "carrier.event_unmatched", "newest first")
        }
    }

    @Test func aReceiverFailingTwiceGetsTheEventOnTheThirdTryAfterBackoff() async throws {
        let receiver = try await WebhookReceiver.start(statuses: [500, 503])
        defer { receiver.stop() }
        let (server, clock) = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let endpoint = try await Self.create(client, url: "http://127.0.0.1:\(receiver.port)/", events: ["order.created"])
            _ = try await client.createOrder()
            try await Self.advance(clock, by: .seconds(1)) { receiver.requests.count >= 1 }
            var log: [JSONValue] = []
            try await Self.advance(clock, by: .zero) {
                log = try await Self.deliveries(client, endpoint.id)
                return log.first?["attempts"] == 1
            }
            #expect(log.first?["status"] == "pending" && log.first?["responseStatus"] == 500, "\(log)")
            #expect(log.first?["error"]?.stringValue?.hasPrefix("answered 500") == true)
            // Nothing before the backoff's 30 s.
            clock.advance(by: .seconds(29))
            try await Task.sleep(for: .milliseconds(200))
            #expect(receiver.requests.count == 1)
            try await Self.advance(clock, by: .seconds(1)) { receiver.requests.count >= 3 }
            try await Self.advance(clock, by: .zero) {
                log = try await Self.deliveries(client, endpoint.id)
                return log.first?["status"] == "succeeded"
            }
            #expect(log.count == 1 && log.first?["attempts"] == 3 && log.first?["responseStatus"] == 200, "\(log)")
            #expect(Set(receiver.requests.map { $0.header("OrderTrack-Event-Id") }).count == 1, "the same event each time")
            // A resend goes out at once, out of band, logged as a delivery of its own.
            let deliveryID = try #require(log.first?["id"]?.stringValue)
            let resent = try await client.merchant(.post, "/api/v1/webhook-endpoints/\(endpoint.id)/deliveries/\(deliveryID)/resend")
            #expect(resent.status == .ok && resent.json["resendOf"] == .string(deliveryID) && resent.json["status"] == "succeeded", "\(resent.text)")
            #expect(
                receiver.requests.count == 4
                    && receiver.requests[3].header("OrderTrack-Event-Id") == receiver.requests[0].header("OrderTrack-Event-Id"))
            log = try await Self.deliveries(client, endpoint.id)
            #expect(log.count == 2 && log.first?["id"] == resent.json["id"])
            let page = try await client.merchant(.get, "/api/v1/webhook-endpoints/\(endpoint.id)/deliveries?limit=1")
            let next = try #require(page.json["nextCursor"]?.stringValue)
            let older = try await client.merchant(.get, "/api/v1/webhook-endpoints/\(endpoint.id)/deliveries?limit=1&after=\(next)")
            #expect(older.json["data"]?.arrayValue?.first?["id"] == .string(deliveryID) && older.json["nextCursor"] == .null)
            #expect(try await client.merchant(.get, "/api/v1/webhook-endpoints/\(endpoint.id)/deliveries?after=bogus").status == .badRequest)
        }
    }

    @Test func threeDaysOfFailuresDisableTheEndpointWithItsReasonAndEnableResumes() async throws {
        let receiver = try await WebhookReceiver.start(statuses: Array(repeating: 502, count: 1_000))
        defer { receiver.stop() }
        let (server, clock) = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let endpoint = try await Self.create(client, url: "http://127.0.0.1:\(receiver.port)/")
            _ = try await client.createOrder()
            var state = JSONValue.null
            try await Self.advance(clock, by: .seconds(3_600)) {
                state = try await client.merchant(.get, "/api/v1/webhook-endpoints/\(endpoint.id)").json
                return state["status"] == "disabled"
            }
            let reason = state["disabledReason"]?.stringValue ?? ""
            #expect(reason.hasPrefix("deliveries failed for ") && reason.contains("answered 502"), "\(reason)")
            let hours = Int(reason.dropFirst("deliveries failed for ".count).prefix { $0.isNumber }) ?? 0
            #expect(hours >= 72, "\(reason)")
            let tries = receiver.requests.count
            #expect((3...40).contains(tries), "backoff doubles up to 6 h: \(tries) attempts in 3 days")
            #expect(try await Self.deliveries(client, endpoint.id).first?["status"] == "failed")
            // Disabled, it is sent nothing.
            clock.advance(by: .seconds(86_400))
            try await Task.sleep(for: .milliseconds(200))
            #expect(receiver.requests.count == tries)
            receiver.succeedFromNowOn()
            let enabled = try await client.merchant(.post, "/api/v1/webhook-endpoints/\(endpoint.id)/enable")
            #expect(enabled.json["status"] == "enabled" && enabled.json["disabledReason"] == .null, "\(enabled.text)")
            try await Self.advance(clock, by: .seconds(1)) { try await Self.deliveries(client, endpoint.id).first?["status"] == "succeeded" }
        }
    }

    @Test func aRotatedSecretSignsBesideTheNewOneForADay() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let (server, clock) = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let endpoint = try await Self.create(client, url: "http://127.0.0.1:\(receiver.port)/", events: ["order.created"])
            let rotated = try await client.merchant(.post, "/api/v1/webhook-endpoints/\(endpoint.id)/rotate-secret")
            #expect(rotated.status == .ok && rotated.headers[.cacheControl] == "no-store")
            let secret = try #require(rotated.json["secret"]?.stringValue)
            #expect(secret.hasPrefix("whsec_") && secret != endpoint.secret)
            _ = try await client.createOrder()
            try await Self.advance(clock, by: .seconds(1)) { receiver.requests.count >= 1 }
            try Self.verifyWithPython([receiver.requests[0]], secrets: [secret, endpoint.secret])
            clock.advance(by: .seconds(86_401))
            _ = try await client.createOrder()
            try await Self.advance(clock, by: .seconds(1)) { receiver.requests.count >= 2 }
            try Self.verifyWithPython([receiver.requests[1]], secrets: [secret])
            // The secret is never listed.
            let listed = try await client.merchant(.get, "/api/v1/webhook-endpoints")
            #expect(listed.json["data"]?.arrayValue?.count == 1 && !listed.text.contains("whsec_"))
        }
    }

    @Test func anEndpointWhoseWorkerDiedIsTakenOverWhenItsLeaseRunsOut() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let (base, clock) = try Self.server()
        var server = base
        let configuration = server.webhooks
        // The server's own worker stays off: the test plays both instances.
        server.webhooks.sendsDeliveries = false
        defer { server.remove() }
        let serverClock = try #require(server.clock)
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            let endpoint = try await Self.create(client, url: "http://127.0.0.1:\(receiver.port)/")
            try await Self.append(client, [NewEvent(merchantID: merchantID, type: .orderUpdated, order: nil, data: [:])])
            // One instance claims the endpoint and is killed before it sends: its claim is left behind.
            let dead = try #require(try await client.store.claimWebhookEndpoints(limit: 1, leaseDuration: 60).first)
            let survivor = WebhookWorker(
                store: client.store, configuration: configuration, isDevelopment: true, logger: Logger(label: "survivor"), clock: serverClock)
            let running = Task { try await survivor.run() }
            defer { running.cancel() }
            clock.advance(by: .seconds(59))
            try await Task.sleep(for: .milliseconds(200))
            #expect(receiver.requests.isEmpty, "not while the lease holds")
            try await Self.advance(clock, by: .seconds(1)) { receiver.requests.count >= 1 }
            try await Self.advance(clock, by: .zero) { try await Self.deliveries(client, endpoint.id).first?["status"] == "succeeded" }
            // The killed worker's late finish changes nothing.
            let late = try await client.store.finishWebhookStep(endpointID: endpoint.id, claim: dead.claim, .skipped(through: 99), leaseDuration: nil)
            #expect(!late)
            #expect(receiver.requests.count == 1)
            running.cancel()
            _ = await running.result
        }
    }

    @Test func internalAddressesAreRefusedAndLoggedAsRefused() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let (base, clock) = try Self.server()
        var server = base
        server.webhooks.addressPolicy = PublicAddressPolicy(allowsLoopback: false)
        defer { server.remove() }
        try await server.run { client in
            let merchantID = client.credentials.merchantID
            let urls = [
                "http://127.0.0.1:\(receiver.port)/", "https://10.1.2.3/hooks", "https://169.254.169.254/latest/meta-data/",
                "http://[::ffff:127.0.0.1]:\(receiver.port)/", "http://localhost:\(receiver.port)/", "https://[fd00::1]/", "https://100.64.0.1/",
            ]
            var ids: [String] = []
            for url in urls {
                let record = WebhookEndpointRecord(
                    id: "we_test\(ids.count)", merchantID: merchantID, url: url, events: ["*"], description: nil, secret: "whsec_test",
                    createdAt: Date())
                ids.append(try await client.store.addWebhookEndpoint(record, limit: 16).id)
            }
            _ = try await client.createOrder()
            for (id, url) in zip(ids, urls) {
                var log: [JSONValue] = []
                try await Self.advance(clock, by: .seconds(1)) {
                    log = try await Self.deliveries(client, id)
                    return !log.isEmpty
                }
                let error = log.first?["error"]?.stringValue ?? ""
                #expect(error.hasPrefix("refused: ") && log.first?["status"] == "pending", "\(url): \(error)")
            }
            #expect(receiver.requests.isEmpty, "nothing reached the loopback receiver")
        }
    }

    @Test func anotherMerchantNeitherSeesTheEndpointsNorFeedsThem() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let (server, clock) = try Self.server()
        defer { server.remove() }
        try await server.run { client in
            let endpoint = try await Self.create(client, url: "http://127.0.0.1:\(receiver.port)/")
            let (merchantB, keyB) = try await Administration(store: client.store).createMerchant(name: "Merchant B")
            for (method, path) in [
                (HTTPRequest.Method.get, "/api/v1/webhook-endpoints/\(endpoint.id)"), (.delete, "/api/v1/webhook-endpoints/\(endpoint.id)"),
                (.post, "/api/v1/webhook-endpoints/\(endpoint.id)/rotate-secret"), (.get, "/api/v1/webhook-endpoints/\(endpoint.id)/deliveries"),
            ] {
                let reply = try await RestrictedKeyTests.call(client, keyB, method, path)
                #expect(reply.status == .notFound, "\(method) \(path): \(reply.text)")
            }
            #expect(try await RestrictedKeyTests.call(client, keyB, .get, "/api/v1/webhook-endpoints").json["data"] == [])
            // B's events never reach A's endpoint; A's next one does.
            try await Self.append(client, [NewEvent(merchantID: merchantB.id, type: .orderCreated, order: nil, data: ["who": .string("B")])])
            try await Self.append(
                client, [NewEvent(merchantID: client.credentials.merchantID, type: .orderCreated, order: nil, data: ["who": .string("A")])])
            try await Self.advance(clock, by: .seconds(1)) { receiver.requests.count >= 1 }
            #expect(receiver.requests.allSatisfy { (try? JSONValue.parse($0.body))?["data"]?["who"] == "A" })
        }
    }

    @Test func theAPIRefusesBadEndpointsAndKeysWithoutTheScopes() async throws {
        var (server, _) = try Self.server()
        server.webhooks.maximumEndpoints = 2
        defer { server.remove() }
        try await server.run { client in
            let cases: [(JSONValue, String, Int)] = [
                (["url": "http://shop.example.com/hooks", "events": ["*"]], "url", 422),
                (["url": "https://user:pw@shop.example.com/", "events": ["*"]], "url", 422),
                (["url": "ftp://shop.example.com/", "events": ["*"]], "url", 422),
                (["url": .string("https://shop.example.com/" + String(repeating: "a", count: 2048)), "events": ["*"]], "url", 422),
                (["url": "https://shop.example.com/", "events": ["order.shipped"]], "events", 422),
                (["url": "https://shop.example.com/", "events": []], "events", 422),
                (["url": "https://shop.example.com/"], "events", 422),
                (["url": "https://shop.example.com/", "events": ["*"], "secret": "mine"], "secret", 422),
            ]
            for (body, param, status) in cases {
                let reply = try await client.merchant(.post, "/api/v1/webhook-endpoints", json: body)
                #expect(reply.status.code == status && reply.json["error"]?["param"] == .string(param), "\(body): \(reply.text)")
                #expect(reply.json["error"]?["code"] == "webhook_endpoint_invalid")
            }
            _ = try await Self.create(client, url: "https://shop.example.com/a")
            _ = try await Self.create(client, url: "https://shop.example.com/b", events: ["order.updated", "order.updated"])
            let third = try await client.merchant(.post, "/api/v1/webhook-endpoints", json: ["url": "https://shop.example.com/c", "events": ["*"]])
            #expect(third.status.code == 422 && third.json["error"]?["message"]?.stringValue?.contains("at most 2") == true, "\(third.text)")
            let listed = try await client.merchant(.get, "/api/v1/webhook-endpoints").json["data"]?.arrayValue ?? []
            #expect(listed.count == 2 && listed.contains { $0["events"] == ["*"] } && listed.contains { $0["events"] == ["order.updated"] })
            #expect(try await client.merchant(.get, "/api/v1/webhook-endpoints/we_nope").status == .notFound)

            let reader = try await RestrictedKeyTests.createKey(client, ["name": "reader", "scopes": ["webhooks:read"]])
            let other = try await RestrictedKeyTests.createKey(client, ["name": "orders", "scopes": ["orders:read"]])
            #expect(try await RestrictedKeyTests.call(client, reader.secret, .get, "/api/v1/webhook-endpoints").status == .ok)
            let write = try await RestrictedKeyTests.call(
                client, reader.secret, .post, "/api/v1/webhook-endpoints", json: ["url": "https://shop.example.com/", "events": ["*"]])
            #expect(write.status == .forbidden && write.json["error"]?["requiredScopes"] == ["webhooks:write"], "\(write.text)")
            let read = try await RestrictedKeyTests.call(client, other.secret, .get, "/api/v1/webhook-endpoints")
            #expect(
                read.status == .forbidden && read.json["error"]?["code"] == "scope_missing"
                    && read.json["error"]?["requiredScopes"] == ["webhooks:read"])
        }
    }

    @Test func productionURLsMustBeHTTPS() throws {
        let production = { (url: String) in try WebhookEndpoints.checkedURL(url, isDevelopment: false) }
        let development = { (url: String) in try WebhookEndpoints.checkedURL(url, isDevelopment: true) }
        #expect(throws: OrderTrackError.self) { try production("http://127.0.0.1:8080/") }
        #expect(throws: OrderTrackError.self) { try production("http://localhost/") }
        #expect(try development("http://127.0.0.1:8080/x") == "http://127.0.0.1:8080/x")
        #expect(try development("http://localhost/") == "http://localhost/")
        #expect(throws: OrderTrackError.self) { try development("http://10.0.0.1/") }
        #expect(try production("https://shop.example.com/h?x=1") == "https://shop.example.com/h?x=1")
    }

    @Test func theAddressPolicyRefusesInternalRanges() throws {
        let policy = PublicAddressPolicy()
        for address in [
            "127.0.0.1", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.127.255.254", "0.0.0.0",
            "224.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
        ] {
            #expect(policy.refusal(of: try SocketAddress(ipAddress: address, port: 443)) != nil, "\(address)")
        }
        for address in ["93.184.216.34", "172.32.0.1", "100.128.0.1", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"] {
            #expect(policy.refusal(of: try SocketAddress(ipAddress: address, port: 443)) == nil, "\(address)")
        }
        #expect(PublicAddressPolicy(allowsLoopback: true).refusal(of: try SocketAddress(ipAddress: "127.0.0.1", port: 80)) == nil)
        #expect(PublicAddressPolicy(allowsLoopback: true).refusal(of: try SocketAddress(ipAddress: "10.0.0.1", port: 80)) != nil)
    }
}

/// A request the receiver got.
struct ReceivedRequest: Sendable {
    var head: HTTPRequestHead
    var body: [UInt8]

    func header(_ name: String) -> String? { head.headers.first(name: name) }
}

/// A merchant's webhook receiver on 127.0.0.1: records each request and answers the next status of its script (200
/// once the script is used up).
final class WebhookReceiver: Sendable {
    fileprivate struct State {
        var requests: [ReceivedRequest] = []
        var statuses: [Int]
    }

    private let box: StateBox
    private let channel: any Channel
    let port: Int

    private init(box: StateBox, channel: any Channel) {
        self.box = box
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    static func start(statuses: [Int] = []) async throws -> WebhookReceiver {
        let box = StateBox(statuses: statuses)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(ReceiverHandler(box: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return WebhookReceiver(box: box, channel: channel)
    }

    var requests: [ReceivedRequest] { box.state.withLock { $0.requests } }

    func succeedFromNowOn() { box.state.withLock { $0.statuses = [] } }

    func stop() { channel.close(promise: nil) }

    final class StateBox: Sendable {
        fileprivate let state: Mutex<State>
        init(statuses: [Int]) { state = Mutex(State(statuses: statuses)) }

        func record(_ request: ReceivedRequest) -> Int {
            state.withLock { state in
                state.requests.append(request)
                return state.statuses.isEmpty ? 200 : state.statuses.removeFirst()
            }
        }
    }

    private final class ReceiverHandler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let box: StateBox
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(box: StateBox) { self.box = box }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = []
            case .body(let buffer):
                body += buffer.readableBytesView
            case .end:
                guard let head else { return }
                let status = box.record(ReceivedRequest(head: head, body: body))
                var headers = HTTPHeaders()
                headers.add(name: "Content-Length", value: "2")
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: headers))),
                    promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "ok")))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
