import Foundation
import OrderModel
import OrderTrackClient
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

typealias Client = ServerTestSupport.Client
typealias OrderTrackError = OrderTrackClient.OrderTrackError

/// Issue #35: the generated client and its hand-written layer against a live server over real HTTP on loopback.
@Suite(.serialized) struct OrderTrackClientTests {
    /// The client of the server `client` drives, signed with `apiKey` (the development secret key unless given).
    static func orderTrack(_ client: Client, apiKey: String? = nil) -> OrderTrack {
        OrderTrack(serverURL: URL(string: "http://127.0.0.1:\(client.port)")!, apiKey: apiKey ?? client.apiKey)
    }

    /// The sample order as the generated type, decoded from the JSON the server tests send.
    static func content(number: String = SampleContent.uniqueNumber()) throws -> Components.Schemas.OrderContent {
        try JSONDecoder().decode(Components.Schemas.OrderContent.self, from: Data(SampleContent.order(number: number).serialized()))
    }

    /// Expects `body` to throw an ``OrderTrackError`` and returns it.
    static func error(_ body: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation) async throws -> OrderTrackError {
        do {
            _ = try await body()
        } catch let error as OrderTrackError {
            return error
        }
        Issue.record("no error", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    @Test func createGetPatchWithIfMatchNotifyAndWalletLink() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let orderTrack = Self.orderTrack(client)
            let content = try Self.content()
            let created = try await orderTrack.createOrder(content, idempotencyKey: "payment-1")
            let details = created.value.orderDetails
            #expect(details.orderTypeIdentifier == client.credentials.orderTypeIdentifier && !details.authenticationToken.isEmpty)
            #expect(details.webServiceURL.hasPrefix(TestServer.publicURL) && created.etag == "\"1\"")
            let replayed = try await orderTrack.createOrder(content, idempotencyKey: "payment-1")
            #expect(replayed.value.orderDetails.orderIdentifier == details.orderIdentifier, "a retried checkout makes no second order")

            let read = try await orderTrack.order(type: details.orderTypeIdentifier, id: details.orderIdentifier)
            #expect(read.value.orderIdentifier == details.orderIdentifier && read.etag == "\"1\"")

            let patch = try JSONDecoder().decode(
                Components.Schemas.OrderPatch.self, from: Data(#"{"fulfillments":[{"fulfillmentIdentifier":"ship-1","status":"onTheWay"}]}"#.utf8))
            let updated = try await orderTrack.updateOrder(
                type: details.orderTypeIdentifier, id: details.orderIdentifier, patch: patch, ifMatch: read.etag)
            #expect(updated.changed && updated.version == 2)
            let stale = try await Self.error {
                try await orderTrack.updateOrder(type: details.orderTypeIdentifier, id: details.orderIdentifier, patch: patch, ifMatch: read.etag)
            }
            #expect(stale.status == 412 && stale.code == "order_version_mismatch" && stale.currentVersion == 2)

            #expect(try await orderTrack.notify(type: details.orderTypeIdentifier, id: details.orderIdentifier) == 0)
            let link = try await orderTrack.walletLink(type: details.orderTypeIdentifier, id: details.orderIdentifier, expiresIn: 3600)
            #expect(link.url.hasPrefix(TestServer.publicURL + "/track/") && link.orderIdentifier == details.orderIdentifier)
        }
    }

    @Test func listWalksEveryPage() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let orderTrack = Self.orderTrack(client)
            var identifiers: [String] = []
            for _ in 0..<5 { identifiers.append(try await orderTrack.createOrder(try Self.content()).value.orderDetails.orderIdentifier) }
            var listed: [String] = []
            for try await order in orderTrack.orders(pageSize: 2) { listed.append(order.orderIdentifier) }
            #expect(listed == identifiers, "every order once, in the order they were created, over three pages")
        }
    }

    @Test func errorAnswersAreOrderTrackErrors() async throws {
        let server = try TestServer()
        defer { server.remove() }
        try await server.run { client in
            let orderTrack = Self.orderTrack(client)
            var invalid = try Self.content()
            invalid.orderManagementURL = "not a url"
            let unprocessable = try await Self.error { try await orderTrack.createOrder(invalid) }
            #expect(unprocessable.status == 422 && unprocessable.code == "order_invalid" && !unprocessable.problems.isEmpty)

            let unauthorized = try await Self.error { try await Self.orderTrack(client, apiKey: "sk_wrong").order(type: "t", id: "i") }
            #expect(unauthorized.status == 401 && unauthorized.type == "authentication_error")

            let created = try await client.merchant(.post, "/api/v1/api-keys", json: ["name": "reader", "scopes": ["orders:read"]])
            let restricted = Self.orderTrack(client, apiKey: try #require(created.json["secret"]?.stringValue))
            let forbidden = try await Self.error { try await restricted.createOrder(try Self.content()) }
            #expect(forbidden.status == 403 && forbidden.code == "scope_missing" && forbidden.message.contains("\"orders:write\""), "\(forbidden)")
            #expect(forbidden.requiredScopes == ["orders:write"])
        }
    }

    @Test func rateLimitedCallsSayWhenToRetry() async throws {
        var server = try TestServer()
        server.limits.perAPIKey = RateLimit(perSecond: 0.01, burst: 2)
        defer { server.remove() }
        try await server.run { client in
            let orderTrack = Self.orderTrack(client)
            var errors: [OrderTrackError] = []
            for _ in 0..<3 {
                errors.append(try await Self.error { try await orderTrack.notify(type: client.credentials.orderTypeIdentifier, id: "missing") })
            }
            #expect(errors.prefix(2).map(\.code) == ["not_found", "not_found"])
            let limited = try #require(errors.last)
            #expect(limited.status == 429 && limited.code == "rate_limited" && (limited.retryAfter ?? 0) > 0, "\(limited)")
        }
    }
}
