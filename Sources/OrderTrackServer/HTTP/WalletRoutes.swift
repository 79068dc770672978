import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OrderModel
import OrderPersistence
import RequestSyntax

/// The Wallet Orders web service: the five endpoints devices call under `<webServiceURL>/v1/`.
struct WalletRoutes: Sendable {
    static let packageContentType = "application/vnd.apple.finance.order"
    /// Log entries kept from one request, and characters kept of each: devices cannot flood the log.
    static let maximumLogEntries = 50
    static let maximumLogEntryLength = 2000

    let store: any OrderStore
    let lookup: OrderLookup
    let packages: PackageService
    let maximumBodySize: Int
    let logger: Logger

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group("wallet/v1")
        group.get("orders/:orderTypeIdentifier/:orderIdentifier") { request, context in
            try await logged("fetch order", request, context) { try await fetchOrder(request, context) }
        }
        group.post("devices/:deviceLibraryIdentifier/registrations/:orderTypeIdentifier/:orderIdentifier") { request, context in
            try await logged("register", request, context) { try await register(request, context) }
        }
        group.delete("devices/:deviceLibraryIdentifier/registrations/:orderTypeIdentifier/:orderIdentifier") { request, context in
            try await logged("unregister", request, context) { try await unregister(request, context) }
        }
        group.get("devices/:deviceLibraryIdentifier/registrations/:orderTypeIdentifier") { request, context in
            try await logged("list registrations", request, context) { try await registrations(request, context) }
        }
        group.post("log") { request, context in
            try await logged("log", request, context) { try await receiveLog(request, context) }
        }
    }

    // MARK: Endpoints

    func fetchOrder(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let record = try await authenticatedOrder(request, context)
        var headers: HTTPFields = [.lastModified: HTTPDate.format(record.updatedAt)]
        if let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse),
            record.updatedAt.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        {
            return Response(status: .notModified, headers: headers)
        }
        let package = try await packages.package(for: record)
        headers[.contentType] = Self.packageContentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: package)))
    }

    func register(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let record = try await authenticatedOrder(request, context)
        let device = try RequestParsing.identifier("deviceLibraryIdentifier", context)
        let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize)
        guard let pushToken = body["pushToken"]?.stringValue else {
            throw APIError.badRequest("push_token_missing", "the body must be {\"pushToken\": \"<hex APNs device token>\"}", param: "pushToken")
        }
        guard (16...512).contains(pushToken.count), pushToken.allSatisfy(\.isHexDigit) else {
            throw APIError.badRequest(
                "push_token_invalid", "pushToken must be the device token in hexadecimal (16–512 hex digits)", param: "pushToken")
        }
        let outcome = try await store.register(
            deviceLibraryIdentifier: device, pushToken: pushToken.lowercased(),
            orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier)
        switch outcome {
        case .created: return Response(status: .created)
        case .alreadyRegistered: return Response(status: .ok)
        }
    }

    func unregister(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let record = try await authenticatedOrder(request, context)
        let device = try RequestParsing.identifier("deviceLibraryIdentifier", context)
        // Apple documents only 200 for this call: unregistering is idempotent.
        _ = try await store.unregister(
            deviceLibraryIdentifier: device, orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier)
        return Response(status: .ok)
    }

    func registrations(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let device = try RequestParsing.identifier("deviceLibraryIdentifier", context)
        let orderType = try RequestParsing.identifier("orderTypeIdentifier", context)
        // The tag is ours and opaque; one we did not issue (say, a timestamp from a previous server) lists everything,
        // which costs a few fetches but never misses an update.
        let query = request.uri.queryParameters
        let tag = (query["ordersModifiedSince"] ?? query["lastModified"]).flatMap { Int64(String($0)) }
        guard
            let changed = try await store.registeredOrderIdentifiers(
                deviceLibraryIdentifier: device, orderTypeIdentifier: orderType, changedAfter: tag),
            !changed.orderIdentifiers.isEmpty
        else { return Response(status: .noContent) }
        let body: JSONValue = [
            "orderIdentifiers": .array(changed.orderIdentifiers.map(JSONValue.string)), "lastModified": .string(String(changed.lastChange)),
        ]
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body.serialized())))
    }

    func receiveLog(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize)
        // Apple's LogEntries is {"logs": [...]}; some clients post the bare array.
        guard let entries = (body["logs"] ?? body).arrayValue else {
            throw APIError.badRequest("logs_missing", "the body must be {\"logs\": [\"message\", …]}", param: "logs")
        }
        for entry in entries.prefix(Self.maximumLogEntries) {
            let text = entry.stringValue ?? entry.serializedString()
            logger.notice("device log", metadata: ["message": .string(String(text.prefix(Self.maximumLogEntryLength)))])
        }
        if entries.count > Self.maximumLogEntries {
            logger.notice("device log truncated", metadata: ["dropped": .stringConvertible(entries.count - Self.maximumLogEntries)])
        }
        return Response(status: .ok)
    }

    // MARK: Helpers

    /// The order named by the path if the `AppleOrder` token matches. Unknown orders and wrong tokens both answer 401,
    /// so the endpoint never reveals which orders exist.
    func authenticatedOrder(_ request: Request, _ context: BasicRequestContext) async throws -> OrderRecord {
        let orderType = try RequestParsing.identifier("orderTypeIdentifier", context)
        let orderIdentifier = try RequestParsing.identifier("orderIdentifier", context)
        let unauthorized = APIError.unauthorized("missing or wrong AppleOrder authorization")
        guard case .appleOrder(let token) = request.headers[.authorization].flatMap(AuthorizationCredentials.parse) else { throw unauthorized }
        guard let record = try await lookup.order(type: orderType, id: orderIdentifier) else {
            _ = Secrets.constantTimeEquals(token, token)
            throw unauthorized
        }
        guard Secrets.constantTimeEquals(token, record.authenticationToken) else { throw unauthorized }
        return record
    }

    /// A path parameter, percent-decoded: clients may escape `:`, `@` or `+` in identifiers.
    /// Runs a device call and writes one log line for it: method, path, status, order id and latency, never a token.
    func logged(_ name: String, _ request: Request, _ context: BasicRequestContext, _ body: () async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        defer {
            if logger.logLevel <= .info {
                let elapsed = ContinuousClock.now - start
                let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                var metadata: Logger.Metadata = [
                    "method": .string(request.method.rawValue), "path": .string(request.uri.path), "status": .stringConvertible(status),
                    "latency_ms": .string(String(format: "%.2f", milliseconds)),
                ]
                if let order = context.parameters.get("orderIdentifier") { metadata["order"] = .string(order) }
                logger.info("wallet \(name)", metadata: metadata)
            }
        }
        do {
            let response = try await body()
            status = Int(response.status.code)
            return response
        } catch {
            status = Int(APIError(answering: error).status.code)
            throw error
        }
    }
}
