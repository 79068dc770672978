import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import OrderModel
import OrderPersistence
import OrderTrackServer
import OrderZip
import ServerTestSupport
import TestSupport
import Testing

/// Two `ordertrack serve` processes on one PostgreSQL database keep orders and packages in memory, and a change,
/// a lost notification connection or a certificate rotation through one is never answered with the old package or
/// list by the other (issue #18; the soak's finding of issue #34).
@Suite(.serialized) struct SharedCacheTests {
    /// Two `serve` processes, A and B, on one fresh PostgreSQL database and one local APNs; the demo merchant's key.
    struct Pair {
        let apns: LocalAPNs
        let database: String
        let dataDirectory: URL
        let processes: [ServerProcess]
        let a: Instance
        let b: Instance
        let apiKey: String

        static func start() async throws -> Pair {
            let apns = try await LocalAPNs.start()
            let database = try TestDatabase.freshPostgresURL()
            let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ordertrack-shared-\(UUID().uuidString)", isDirectory: true)
            let processes = try (0..<2).map { _ in try ServerProcess(dataDirectory: dataDirectory, database: database, apns: apns) }
            let apiKey = try JSONDecoder().decode(
                DevelopmentCredentials.self, from: Data(contentsOf: dataDirectory.appendingPathComponent("dev-credentials.json"))
            ).apiKey
            return Pair(
                apns: apns, database: database, dataDirectory: dataDirectory, processes: processes,
                a: Instance(base: "http://127.0.0.1:\(processes[0].port)"), b: Instance(base: "http://127.0.0.1:\(processes[1].port)"),
                apiKey: apiKey)
        }

        func stop() async throws {
            for process in processes { await process.stop() }
            try await apns.stop()
        }

        func remove() {
            try? FileManager.default.removeItem(at: dataDirectory)
        }

        /// Ends every instance's notification connection from the server side (`pg_terminate_backend`); how many.
        func terminateListeners() throws -> Int {
            let killed = try ExternalTools.run(
                "/usr/bin/env",
                [
                    "psql", try #require(TestDatabase.postgresURL), "-Atc",
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'ordertrack-listener'",
                ])
            return Int(String(decoding: killed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
    }

    struct Instance {
        var base: String

        func fetch(_ type: String, _ id: String, token: String) async throws -> (status: UInt, body: [UInt8]) {
            var request = HTTPClientRequest(url: base + "/wallet/v1/orders/\(type)/\(id)")
            request.headers.add(name: "Authorization", value: "AppleOrder \(token)")
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 8 << 20)
            return (response.status.code, Array(bytes.readableBytesView))
        }

        /// Registers `device` for pushes of an order; the HTTP status.
        func register(_ device: String, _ type: String, _ id: String, token: String) async throws -> UInt {
            var request = HTTPClientRequest(url: base + "/wallet/v1/devices/\(device)/registrations/\(type)/\(id)")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "AppleOrder \(token)")
            request.headers.add(name: "Content-Type", value: "application/json")
            // A token the local APNs accepts: one it rejects would be unregistered by the push after a change.
            request.body = .bytes(ByteBuffer(string: #"{"pushToken":"\#(String(repeating: "ab", count: 32))"}"#))
            return try await HTTPClient.shared.execute(request, timeout: .seconds(30)).status.code
        }

        /// The device's registrations list of a type after `tag`: the orders and the next tag (none for 204).
        func registrations(_ device: String, _ type: String, after tag: String? = nil) async throws -> (ids: [String], tag: String?) {
            let query = tag.map { "?ordersModifiedSince=\($0)" } ?? ""
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: base + "/wallet/v1/devices/\(device)/registrations/\(type)\(query)"), timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else {
                #expect(response.status == .noContent)
                return ([], nil)
            }
            let json = try JSONValue.parse(bytes.readableBytesView)
            return (json["orderIdentifiers"]?.arrayValue?.compactMap(\.stringValue) ?? [], json["lastModified"]?.stringValue)
        }

        /// A counter or gauge of `/metrics`, by its name with labels as rendered (`ordertrack_cache_hits_total{cache="orders"}`).
        func metric(_ name: String) async throws -> Double {
            try await ServerMetrics.value(name, at: base)
        }

        func waitForMetric(_ name: String, above value: Double) async throws {
            try await Poll.expect(within: .seconds(20)) { try await metric(name) > value }
        }
    }

    static let packageInvalidations = #"ordertrack_cache_invalidations_total{cache="packages"}"#

    /// The order's document as the package carries it.
    static func document(in package: [UInt8]) throws -> JSONValue {
        try JSONValue.parse(try #require(try ZipReader.read(package).first { $0.name == "order.json" }).data)
    }

    /// A change through A is served by B at once, whether or not B has heard PostgreSQL's announcement of it yet (the
    /// change's push can reach a device before the announcement reaches B), also while B's notification connection is
    /// lost; a certificate rotation through A re-signs B's package.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func aChangeALostNotificationConnectionAndARotationThroughOneInstanceAreSeenByTheOther() async throws {
        let pair = try await Pair.start()
        defer { pair.remove() }
        let (a, b, apiKey) = (pair.a, pair.b, pair.apiKey)
        let store = try await OrderTrackApplication.openStore(
            configuration: developmentConfiguration(dataDirectory: pair.dataDirectory.path, databaseURL: pair.database),
            logger: Logger(label: "shared-cache-test"))
        try await b.waitForMetric(ChangeFeed.following, above: 0)

        let created = try await MultiInstanceTests.send(
            .POST, a.base + "/api/v1/orders", authorization: "Bearer \(apiKey)", body: SampleContent.order)
        let details = try #require(created.json["orderDetails"])
        let type = try #require(details["orderTypeIdentifier"]?.stringValue)
        let id = try #require(details["orderIdentifier"]?.stringValue)
        let token = try #require(details["authenticationToken"]?.stringValue)
        func patch(_ status: String) async throws {
            let reply = try await MultiInstanceTests.send(
                .PATCH, a.base + "/api/v1/orders/\(type)/\(id)", authorization: "Bearer \(apiKey)", body: ["status": .string(status)])
            #expect(reply.status == 200)
        }
        func statusServedByB() async throws -> String? {
            let fetched = try await b.fetch(type, id, token: token)
            #expect(fetched.status == 200)
            return try Self.document(in: fetched.body)["status"]?.stringValue
        }

        // B keeps the order: its next fetch is a hit, once PostgreSQL confirmed the version.
        #expect(try await statusServedByB() == "open")
        let hits = try await b.metric(ChangeFeed.orderHits)
        #expect(try await statusServedByB() == "open")
        #expect(try await b.metric(ChangeFeed.orderHits) > hits, "the second fetch came from B's memory")

        // Changes through A, each fetched from B the moment A answered, with no wait for B to hear of it.
        for status in ["completed", "cancelled", "open", "completed", "open"] {
            try await patch(status)
            #expect(try await statusServedByB() == status)
        }

        // B's notification connection is killed: a change made before it is back is served at once too.
        let interruptions = try await b.metric(ChangeFeed.interruptions)
        #expect(try pair.terminateListeners() >= 2, "both listeners were terminated")
        try await patch("cancelled")
        #expect(try await statusServedByB() == "cancelled")
        try await b.waitForMetric(ChangeFeed.interruptions, above: interruptions)
        try await b.waitForMetric(ChangeFeed.following, above: 0)
        try await patch("open")
        #expect(try await statusServedByB() == "open")

        // A certificate rotation through A: B's package of the same version is signed again with the new certificate.
        let before = try await b.fetch(type, id, token: token).body
        let rotation = try Self.rotationIdentity(orderTypeIdentifier: type)
        #expect(!Self.contains(try Self.signature(in: before), rotation.certificateDER))
        let packageInvalidations = try await b.metric(Self.packageInvalidations)
        let rotated = try await MultiInstanceTests.send(
            .PUT, a.base + "/api/v1/order-types/\(type)", authorization: "Bearer \(apiKey)",
            body: ["pkcs12": .string(Data(rotation.pkcs12).base64EncodedString()), "password": "pw"])
        #expect(rotated.status == 200, "\(rotated.json)")
        try await b.waitForMetric(Self.packageInvalidations, above: packageInvalidations)
        let after = try await b.fetch(type, id, token: token)
        #expect(after.status == 200)
        #expect(Self.contains(try Self.signature(in: after.body), rotation.certificateDER), "B's package is signed with the rotated certificate")
        #expect(try Self.document(in: after.body)["status"]?.stringValue == "open")

        try await store.shutdown()
        try await pair.stop()
    }

    /// A device's registrations list on B includes registrations and changes made through A the moment A answered
    /// them, also while B's notification connection is lost: B reads every list from PostgreSQL.
    @Test(.enabled(if: TestDatabase.postgresURL != nil, Comment(rawValue: TestDatabase.skipReason)))
    func registrationsAndChangesThroughOneInstanceAreInTheOthersRegistrationsList() async throws {
        let pair = try await Pair.start()
        defer { pair.remove() }
        let (a, b, apiKey) = (pair.a, pair.b, pair.apiKey)
        try await b.waitForMetric(ChangeFeed.following, above: 0)
        // Through instance A's HTTP port, not `Client.createOrder`: the servers here are other processes.
        func createOrder() async throws -> (type: String, id: String, token: String) {
            let created = try await MultiInstanceTests.send(
                .POST, a.base + "/api/v1/orders", authorization: "Bearer \(apiKey)", body: SampleContent.order)
            let details = try #require(created.json["orderDetails"])
            return (
                try #require(details["orderTypeIdentifier"]?.stringValue), try #require(details["orderIdentifier"]?.stringValue),
                try #require(details["authenticationToken"]?.stringValue)
            )
        }
        let device = "device-\(UUID().uuidString.prefix(8))"
        let one = try await createOrder()
        let type = one.type
        #expect(try await a.register(device, type, one.id, token: one.token) == 201)
        let listed = try await b.registrations(device, type)
        #expect(listed.ids == [one.id])
        let tag = try #require(listed.tag)
        #expect(try await b.registrations(device, type, after: tag).ids == [])

        // A registration through A.
        let two = try await createOrder()
        #expect(try await a.register(device, type, two.id, token: two.token) == 201)
        #expect(try await b.registrations(device, type).ids == [one.id, two.id])
        #expect(try await b.registrations(device, type, after: tag).ids == [two.id])

        // A change of the first order through A: B's list from the newest tag shows it.
        let newest = try #require(try await b.registrations(device, type).tag)
        let patched = try await MultiInstanceTests.send(
            .PATCH, a.base + "/api/v1/orders/\(type)/\(one.id)", authorization: "Bearer \(apiKey)", body: ["status": "completed"])
        #expect(patched.status == 200)
        #expect(try await b.registrations(device, type, after: newest).ids == [one.id])
        #expect(try await b.registrations(device, type).ids == [two.id, one.id])

        // B's notification connection is killed; an unregistration through A is in B's next list all the same.
        #expect(try pair.terminateListeners() >= 2, "both listeners were terminated")
        var request = HTTPClientRequest(url: a.base + "/wallet/v1/devices/\(device)/registrations/\(type)/\(two.id)")
        request.method = .DELETE
        request.headers.add(name: "Authorization", value: "AppleOrder \(two.token)")
        #expect(try await HTTPClient.shared.execute(request, timeout: .seconds(30)).status == .ok)
        #expect(try await b.registrations(device, type).ids == [one.id])
        #expect(try await a.register(device, type, two.id, token: two.token) == 201)
        #expect(try await b.registrations(device, type).ids.sorted() == [one.id, two.id].sorted())

        try await pair.stop()
    }

    /// A self-signed Order Type ID identity for `orderTypeIdentifier` as a PKCS#12 (password "pw"), and its
    /// certificate's DER.
    static func rotationIdentity(orderTypeIdentifier: String) throws -> (pkcs12: [UInt8], certificateDER: [UInt8]) {
        let pkcs12 = try DevelopmentPKCS12.make(orderTypeIdentifier: orderTypeIdentifier, iterations: 2048)
        let pem = try ExternalTools.run(
            "/usr/bin/openssl", ["pkcs12", "-in", "/dev/stdin", "-passin", "pass:pw", "-nokeys", "-clcerts"], input: pkcs12)
        let der = try ExternalTools.run("/usr/bin/openssl", ["x509", "-outform", "DER"], input: pem)
        return (pkcs12, der)
    }

    static func signature(in package: [UInt8]) throws -> [UInt8] {
        try #require(try ZipReader.read(package).first { $0.name == "signature" }).data
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
