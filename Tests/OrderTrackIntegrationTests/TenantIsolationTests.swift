import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import OrderModel
import OrderSigning
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

/// Audit H1, H2 and M3: CPU-heavy requests and one tenant's slow signing identity leave `/healthz` and other tenants'
/// device fetches answering; L14: shutdown waits for background package builds instead of failing them.
@Suite struct TenantIsolationTests {
    /// The worst latency a probe may see while the heavy work runs. With the work on the CPU pool, a cached fetch
    /// only competes for the two cores through the scheduler's time slices: 10–50 ms measured on the 2-core debug
    /// build. With the work on Swift's cooperative pool or behind the PackageService actor it waits for whole
    /// validations, parses and builds: 1.5 s (fetch) and 7.7 s (`/healthz`) with the worst bodies, 2 s behind B's
    /// identity load, measured before the fix.
    static let latencyBound = Duration.seconds(1)

    @Test func h1h2_worstBodiesDoNotStallDeviceFetches() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let probe = try await Probe.cachedFetch(client)
            let (type, target, _) = try await client.createOrder().details

            // H1: an amount of "42." and four million zeros, near the 4 MiB body limit.
            var hugeAmount = SampleContent.order
            hugeAmount["payment"]?["total"]?["amount"] = .string("42." + String(repeating: "0", count: 4_000_000))
            // H2: 120,000 new fulfillments in one PATCH (the audit's 4 MiB body: identifiers of at most four characters).
            let fulfillments: JSONValue = ["fulfillments": .array((0..<120_000).map { ["fulfillmentIdentifier": .string(String($0, radix: 36))] })]
            let heavy: [(method: HTTPMethod, path: String, body: [UInt8], expected: ClosedRange<UInt>)] = [
                (.POST, "/api/v1/orders", hugeAmount.serialized(), 422...422),
                (.POST, "/api/v1/orders", hugeAmount.serialized(), 422...422),
                (.PATCH, "/api/v1/orders/\(type)/\(target)", fulfillments.serialized(), 422...422),
                (.PATCH, "/api/v1/orders/\(type)/\(target)", fulfillments.serialized(), 422...422),
                (.POST, "/api/v1/orders", Self.largeValidOrder().serialized(), 201...201),
                (.POST, "/api/v1/orders", Self.largeValidOrder().serialized(), 201...201),
            ]
            #expect(heavy.allSatisfy { $0.body.count < 4 * 1024 * 1024 }, "every body fits the merchant body limit: \(heavy.map(\.body.count))")

            let (statuses, worst) = try await probe.worstLatencies(of: [probe.fetch, probe.health]) {
                try await withThrowingTaskGroup(of: (Int, UInt).self) { group in
                    for (index, request) in heavy.enumerated() {
                        group.addTask {
                            (
                                index,
                                try await probe.send(request.method, request.path, authorization: "Bearer \(client.apiKey)", body: request.body)
                                    .status
                            )
                        }
                    }
                    return try await group.reduce(into: [Int: UInt]()) { $0[$1.0] = $1.1 }
                }
            }
            for (index, request) in heavy.enumerated() {
                #expect(
                    statuses[index].map(request.expected.contains) == true,
                    "\(request.method) \(request.path): \(String(describing: statuses[index]))")
            }
            #expect(worst.samples >= 3, "the probes ran while the heavy requests did")
            #expect(
                worst.latencies[0] < Self.latencyBound,
                "cached device fetch: worst \(worst.latencies[0]) over \(worst.samples) samples in \(worst.elapsed)")
            #expect(worst.latencies[1] < Self.latencyBound, "/healthz: worst \(worst.latencies[1]) over \(worst.samples) samples in \(worst.elapsed)")
        }
    }

    @Test func m3_aSlowIdentityLoadDoesNotStallAnotherTenantsFetches() async throws {
        let server = try TestServer()
        defer { server.remove() }
        // 600,000 iterations, the most a file may have: loading it derives keys for a while on one core.
        let pkcs12 = try DevelopmentPKCS12.make(orderTypeIdentifier: Self.otherType, iterations: 600_000)
        let otherKey = try await server.run { client in
            let probe = try await Probe.cachedFetch(client)
            let (merchantB, apiKey) = try await Administration(store: client.store).createMerchant(name: "Merchant B")
            // Row 136: B uploads its identity (parsed on the CPU pool) while A's device fetches. Its development chain is
            // refused once parsed (a second merchant, audit L21), so the operator configures it afterwards.
            let (upload, worst) = try await probe.worstLatencies(of: [probe.fetch]) {
                try await probe.send(
                    .PUT, "/api/v1/order-types/\(Self.otherType)", authorization: "Bearer \(apiKey)",
                    body: (["pkcs12": .string(Data(pkcs12).base64EncodedString()), "password": "pw"] as JSONValue).serialized())
            }
            #expect(upload.status == 422, "\(String(decoding: upload.body, as: UTF8.self))")
            #expect(
                worst.latencies[0] < Self.latencyBound,
                "A's fetch during B's upload: worst \(worst.latencies[0]) over \(worst.samples) samples in \(worst.elapsed)")
            try await Administration(store: client.store, trust: .development).setOrderType(
                merchantID: merchantB.id, orderTypeIdentifier: Self.otherType, identity: .pkcs12(bytes: pkcs12, password: "pw", wwdrPEM: nil))
            return apiKey
        }
        // Row 178: after a restart nothing is parsed yet; B's first package build loads the identity.
        try await server.run { client in
            let probe = try await Probe.cachedFetch(client)
            var content = SampleContent.order
            content["orderTypeIdentifier"] = .string(Self.otherType)
            let order = content.serialized()
            let (built, worst) = try await probe.worstLatencies(of: [probe.fetch]) {
                let created = try await probe.send(.POST, "/api/v1/orders", authorization: "Bearer \(otherKey)", body: order)
                let details = try #require(JSONValue.parse(created.body)["orderDetails"])
                let path = "/wallet/v1/orders/\(Self.otherType)/\(details["orderIdentifier"]!.stringValue!)"
                // Several devices at once: they share the one build (and identity load) in progress.
                return try await withThrowingTaskGroup(of: [UInt8].self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            try await probe.send(.GET, path, authorization: "AppleOrder \(details["authenticationToken"]!.stringValue!)").body
                        }
                    }
                    return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
                }
            }
            #expect(built.count == 1, "one package for all four fetches")
            #expect(built.first.map { ZipNames.of($0).contains("signature") } == true)
            #expect(worst.samples >= 3, "A fetched while B's identity loaded")
            #expect(
                worst.latencies[0] < Self.latencyBound,
                "A's fetch during B's first build: worst \(worst.latencies[0]) over \(worst.samples) samples in \(worst.elapsed)")
        }
    }

    @Test func m3_aPKCS12WithTenMillionIterationsIsRefusedAtOnce() async throws {
        let server = try TestServer()
        defer { server.remove() }
        let pkcs12 = try DevelopmentPKCS12.make(orderTypeIdentifier: Self.otherType, iterations: 10_000_000)
        try await server.run { client in
            let start = ContinuousClock.now
            let refused = try await client.merchant(
                .put, "/api/v1/order-types/\(Self.otherType)", json: ["pkcs12": .string(Data(pkcs12).base64EncodedString()), "password": "pw"])
            let elapsed = ContinuousClock.now - start
            #expect(refused.status == .unprocessableContent)
            #expect(refused.json["error"]?["code"] == "order_type_rejected")
            let message = try #require(refused.json["error"]?["message"]?.stringValue)
            #expect(message.contains("asks for 10000000 iterations, more than the 600000 this server accepts"), "\(message)")
            // 10,000,000 PBKDF2 rounds take tens of seconds here; a loaded machine answers the refusal well within 5 s.
            #expect(elapsed < .seconds(5), "refused before any key derivation: \(elapsed)")
        }
    }

    @Test func l14_shutdownWaitsForBackgroundBuildsQuietly() async throws {
        let server = try TestServer()
        defer { server.remove() }
        let log = RecordingLogHandler.Entries()
        let logger = Logger(label: "l14", factory: { _ in RecordingLogHandler(entries: log) })
        let start = try await server.run(logger: logger) { client in
            // A burst of creations queues as many builds; the server stops at once.
            for _ in 0..<20 {
                let created = try await client.merchant(.post, "/api/v1/orders", json: SampleContent.order)
                #expect(created.status == .created)
            }
            return ContinuousClock.now
        }
        let shutdown = ContinuousClock.now - start
        // A build that outlived the server would fail on the closed store a moment later.
        try await Task.sleep(for: .milliseconds(500))
        #expect(log.messages(atLeast: .error).isEmpty, "\(log.messages(atLeast: .error))")
        #expect(shutdown < .seconds(15), "shutdown waits for running builds, and not for long: \(shutdown)")
    }

    // MARK: Helpers

    static let otherType = "order.com.merchantb"

    /// A valid order of about 3.7 MB: 250 fulfillments with 200 line items each, every one to validate and normalize.
    static func largeValidOrder() -> JSONValue {
        var order = SampleContent.order
        order["fulfillments"] = .array(
            (0..<250).map { fulfillment in
                [
                    "fulfillmentType": "shipping", "fulfillmentIdentifier": .string("ship-\(fulfillment)"), "status": "processing",
                    "lineItems": .array(
                        (0..<200).map { item in
                            ["title": .string("Item \(fulfillment)-\(item)"), "quantity": 1, "price": ["amount": "1.50", "currency": "USD"]]
                        }),
                ]
            })
        return order
    }
}

/// Requests over AsyncHTTPClient (one connection each, like separate devices), and a device fetch of an order whose
/// package is already built.
struct Probe: Sendable {
    let base: String
    let fetchPath: String
    let token: String

    struct Latencies: Sendable {
        var latencies: [Duration]
        var samples: Int
        var elapsed: Duration
    }

    /// Creates an order of the development merchant and fetches it once, so its package is cached.
    static func cachedFetch(_ client: Client) async throws -> Probe {
        let (type, id, token) = try await client.createOrder().details
        let probe = Probe(base: "http://127.0.0.1:\(client.port)", fetchPath: "/wallet/v1/orders/\(type)/\(id)", token: token)
        try await probe.fetch()
        return probe
    }

    @Sendable func fetch() async throws {
        let status = try await send(.GET, fetchPath, authorization: "AppleOrder \(token)").status
        guard status == 200 else { throw ProbeFailure(description: "device fetch answered \(status)") }
    }

    @Sendable func health() async throws {
        let status = try await send(.GET, "/healthz").status
        guard status == 200 else { throw ProbeFailure(description: "/healthz answered \(status)") }
    }

    func send(_ method: HTTPMethod, _ path: String, authorization: String? = nil, body: [UInt8]? = nil) async throws -> (status: UInt, body: [UInt8])
    {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(300))
        return (response.status.code, Array(try await response.body.collect(upTo: 64 * 1024 * 1024).readableBytesView))
    }

    /// Runs `work` while calling each probe in turn, every 50 ms; returns its value and each probe's worst latency.
    func worstLatencies<Value: Sendable>(
        of probes: [@Sendable () async throws -> Void], during work: @Sendable () async throws -> Value
    ) async throws -> (Value, Latencies) {
        try await withThrowingTaskGroup(of: Latencies.self) { group in
            let start = ContinuousClock.now
            group.addTask {
                var measured = Latencies(latencies: Array(repeating: .zero, count: probes.count), samples: 0, elapsed: .zero)
                sampling: while !Task.isCancelled {
                    for (index, probe) in probes.enumerated() {
                        let sent = ContinuousClock.now
                        do {
                            try await probe()
                        } catch {
                            // Cancelled mid-request because the work finished: that sample does not count.
                            if Task.isCancelled { break sampling }
                            throw error
                        }
                        measured.latencies[index] = max(measured.latencies[index], ContinuousClock.now - sent)
                    }
                    measured.samples += 1
                    try? await Task.sleep(for: .milliseconds(50))
                }
                return measured
            }
            let value = try await work()
            let elapsed = ContinuousClock.now - start
            group.cancelAll()
            guard var measured = try await group.next() else { throw ProbeFailure(description: "no probe results") }
            measured.elapsed = elapsed
            return (value, measured)
        }
    }
}

struct ProbeFailure: Error, CustomStringConvertible {
    var description: String
}
