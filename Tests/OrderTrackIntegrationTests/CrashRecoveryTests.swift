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

// Serialized: the kill must land in the middle of a real fan-out, which a busy machine stretches.
@Suite(.serialized) struct CrashRecoveryTests {
    static let devices = 10_000

    func call(_ http: HTTPClient, _ method: HTTPMethod, _ url: String, apiKey: String, body: JSONValue? = nil) async throws -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(apiKey)")
        if let body { request.body = .bytes(ByteBuffer(bytes: body.serialized())) }
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return try JSONValue.parse(bytes.readableBytesView)
    }

    @Test func killedMidFanOutEveryTokenStillGetsItsPush() async throws {
        let apns = try await LocalAPNs.start()
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-crash-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let database = try TestDatabase.storeURL()
        let http = HTTPClient.shared

        // First start: bootstrap and one order.
        var server = try ServerProcess(dataDirectory: dataDirectory, database: database, apns: apns)
        let credentials = try JSONDecoder().decode(
            DevelopmentCredentials.self, from: Data(contentsOf: dataDirectory.appendingPathComponent("dev-credentials.json")))
        let created = try await call(
            http, .POST, "http://127.0.0.1:\(server.port)/api/v1/orders", apiKey: credentials.apiKey, body: SampleContent.order)
        let type = try #require(created["orderDetails"]?["orderTypeIdentifier"]?.stringValue)
        let id = try #require(created["orderDetails"]?["orderIdentifier"]?.stringValue)
        await server.stop()

        // 10,000 devices register for it (written straight into the database while the server is down).
        let tokens = (1...Self.devices).map { String(format: "%064x", $0) }
        // Bulk inserts are the SQL store's own, in no role.
        let store = try #require(
            try await OrderTrackApplication.openStore(
                configuration: developmentConfiguration(dataDirectory: dataDirectory.path, databaseURL: database), logger: Logger(label: "crash-test")
            )
                as? SQLOrderStore)
        try await store.insertRegistrations(
            tokens.enumerated().map { index, token in
                Registration(
                    deviceLibraryIdentifier: "device-\(index)", pushToken: token, orderTypeIdentifier: type, orderIdentifier: id, registeredAt: Date()
                )
            })
        try await store.shutdown()

        // The order changes: 10,000 pushes are queued with it. Kill the server while it fans out.
        server = try ServerProcess(dataDirectory: dataDirectory, database: database, apns: apns)
        _ = try await call(
            http, .PATCH, "http://127.0.0.1:\(server.port)/api/v1/orders/\(type)/\(id)", apiKey: credentials.apiKey, body: ["status": "completed"])
        try await Poll.until(timeout: .seconds(60), every: .milliseconds(2)) { apns.server.count >= 300 }
        await server.kill()
        let beforeCrash = Set(apns.server.pushes().map(\.deviceToken)).count
        #expect(beforeCrash > 0 && beforeCrash < Self.devices, "the kill must land mid fan-out (\(beforeCrash) delivered)")

        // After a restart every token is pushed; none is lost.
        server = try ServerProcess(dataDirectory: dataDirectory, database: database, apns: apns)
        // Generous: CI runs every suite at once on two cores, and this one sends 10,000 pushes in a debug build.
        try await Poll.until(timeout: .seconds(400), every: .milliseconds(500)) {
            Set(apns.server.pushes().map(\.deviceToken)).count >= Self.devices
        }
        await server.stop()
        let delivered = Set(apns.server.pushes().map(\.deviceToken))
        let missing = Set(tokens).subtracting(delivered)
        #expect(missing.isEmpty, "\(missing.count) of \(Self.devices) tokens never got their push")
        #expect(delivered.isSubset(of: Set(tokens)))
        try await apns.stop()
    }
}
