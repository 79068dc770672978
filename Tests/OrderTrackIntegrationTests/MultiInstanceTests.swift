import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import OrderModel
import OrderPersistence
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

/// Two `ordertrack serve` processes on one PostgreSQL database, as behind a load balancer.
@Suite(.serialized) struct MultiInstanceTests {
    /// Enough that the kill lands mid fan-out with a thousand and more claims in flight on both instances; 10,000 took
    /// 7.5 of CI's minutes through two debug builds and proved nothing more (scale is `ordertrack bench push`'s, in
    /// release).
    static let orders = 2_000

    struct Placed: Sendable {
        var type: String
        var id: String
        var token: String
        var device: String { "device-\(id)" }
        var pushToken: String
    }

    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func twoInstancesShareTheWorkAndTheSurvivorFinishesAKilledOnesJobs() async throws {
        let apns = try await LocalAPNs.start()
        let database = try TestDatabase.freshPostgresURL()
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-multi-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        // A load test from one address with one API key (the orders as fast as two instances take them): request
        // rates off, as for the benchmarks.
        let first = try ServerProcess(
            dataDirectory: dataDirectory, database: database, apns: apns, leaseSeconds: 5, extraArguments: ["--no-rate-limits"])
        let second = try ServerProcess(
            dataDirectory: dataDirectory, database: database, apns: apns, leaseSeconds: 5, extraArguments: ["--no-rate-limits"])
        let bases = ["http://127.0.0.1:\(first.port)", "http://127.0.0.1:\(second.port)"]
        let apiKey = try JSONDecoder().decode(
            DevelopmentCredentials.self, from: Data(contentsOf: dataDirectory.appendingPathComponent("dev-credentials.json"))
        ).apiKey
        let store = try await OrderTrackApplication.openStore(
            configuration: developmentConfiguration(dataDirectory: dataDirectory.path, databaseURL: database),
            logger: Logger(label: "multi-instance-test")
        )

        // Orders created and devices registered through both instances, each device at the other instance.
        let placed: [Placed] = try await Self.concurrently(0..<Self.orders) { index in
            var content = SampleContent.order
            content = content.setting("orderNumber", to: .string("multi-\(index)"))
            let created = try await Self.send(.POST, bases[index % 2] + "/api/v1/orders", authorization: "Bearer \(apiKey)", body: content)
            let details = try #require(created.json["orderDetails"])
            let order = Placed(
                type: try #require(details["orderTypeIdentifier"]?.stringValue), id: try #require(details["orderIdentifier"]?.stringValue),
                token: try #require(details["authenticationToken"]?.stringValue), pushToken: String(format: "%064x", index + 1))
            let registered = try await Self.send(
                .POST, bases[(index + 1) % 2] + "/wallet/v1/devices/\(order.device)/registrations/\(order.type)/\(order.id)",
                authorization: "AppleOrder \(order.token)", body: ["pushToken": .string(order.pushToken)])
            #expect(registered.status == 201)
            return order
        }
        let tokens = Set(placed.map(\.pushToken))
        print("multi-instance: \(Self.orders) orders created and devices registered through both instances")

        // An update of each order through both instances: each device is pushed exactly once, by one of them.
        _ = try await Self.concurrently(placed.indices) { index in
            let order = placed[index]
            let updated = try await Self.send(
                .PATCH, bases[index % 2] + "/api/v1/orders/\(order.type)/\(order.id)", authorization: "Bearer \(apiKey)",
                body: ["status": "completed"])
            #expect(updated.status == 200)
        }
        // Settled when the queue is empty and every push the mock accepted has been answered to its sender (the two
        // instances' sent counters add up to the mock's count): a second send of a job, had there been one, is then
        // already in the count rather than still on its way.
        try await Poll.expect(within: .seconds(300)) {
            guard try await store.pushQueueDepth().pending == 0, apns.server.count >= Self.orders else { return false }
            let sent = try await ServerMetrics.value(Self.pushesSent, at: bases[0]) + ServerMetrics.value(Self.pushesSent, at: bases[1])
            return Int(sent) == apns.server.count
        }
        let firstRound = apns.server.pushes().map(\.deviceToken)
        #expect(firstRound.count == Self.orders, "\(firstRound.count - Self.orders) pushes were sent twice")
        #expect(Set(firstRound) == tokens)

        // Another round of updates, all through the second instance while the first sends its share of the pushes;
        // the first is killed mid fan-out, and the second takes its claims over when their leases end.
        let updates = Task {
            try await Self.concurrently(placed.indices) { index in
                let order = placed[index]
                _ = try await Self.send(
                    .PATCH, bases[1] + "/api/v1/orders/\(order.type)/\(order.id)", authorization: "Bearer \(apiKey)", body: ["status": "open"])
            }
        }
        try await Poll.expect(within: .seconds(300)) { apns.server.count >= Self.orders + Self.orders / 5 }
        await first.kill()
        #expect(apns.server.count < 2 * Self.orders, "the kill must land mid fan-out")
        _ = try await updates.value
        // A push the mock received may not have its outcome committed yet, and the killed instance's claims stay
        // pending until their leases end: the queue empties after the last delivery, not with it.
        try await Poll.expect(within: .seconds(300)) {
            var counts: [String: Int] = [:]
            for push in apns.server.pushes() { counts[push.deviceToken, default: 0] += 1 }
            guard tokens.allSatisfy({ counts[$0, default: 0] >= 2 }) else { return false }
            return try await store.pushQueueDepth().pending == 0
        }
        await second.stop()
        try await store.shutdown()
        try await apns.stop()
    }

    static let pushesSent = "ordertrack_pushes_sent_total"

    struct Reply: Sendable {
        var status: UInt
        var json: JSONValue
    }

    static func send(_ method: HTTPMethod, _ url: String, authorization: String, body: JSONValue) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body.serialized()))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return Reply(status: response.status.code, json: (try? JSONValue.parse(bytes.readableBytesView)) ?? .null)
    }

    /// Runs `body` for every index with at most 16 in flight; results in index order.
    static func concurrently<T: Sendable>(_ indices: Range<Int>, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            var results: [Int: T] = [:]
            var next = indices.lowerBound
            while next < indices.upperBound || !group.isEmpty {
                while next < indices.upperBound, next - indices.lowerBound - results.count < 16 {
                    let index = next
                    group.addTask { (index, try await body(index)) }
                    next += 1
                }
                if let (index, value) = try await group.next() { results[index] = value }
            }
            return indices.map { results[$0]! }
        }
    }
}
