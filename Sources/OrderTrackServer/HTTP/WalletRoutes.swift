import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OrderModel
import OrderPersistence

/// The Wallet Orders web service: the five endpoints devices call under `<webServiceURL>/v1/`.
struct WalletRoutes: Sendable {
    static let packageContentType = "application/vnd.apple.finance.order"

    /// Orders by their identifiers, from memory when it is safe, for authenticating device calls.
    let records: OrderRecordCache
    let walletLinks: WalletLinkService
    let devices: DeviceService
    let packages: PackageService
    /// Notes each answered fetch in the order's activity, written behind (no database write on this path).
    let fetches: FetchActivityRecorder
    /// Writes device logs escaped and within each client's byte budget.
    let deviceLog: DeviceLogWriter
    let maximumBodySize: Int
    /// The call log's latencies.
    let clock: ServerClock

    func add(to router: Router<OrderTrackRequestContext>) {
        let wallet = router.group("wallet/v1").add(middleware: DeviceCallLogMiddleware(clock: clock))
        wallet.get("devices/:deviceLibraryIdentifier/registrations/:orderTypeIdentifier") { request, context in
            try await registrations(request, context)
        }
        wallet.post("log") { request, context in try await receiveLog(request, context) }
        let order = wallet.group().add(middleware: AppleOrderAuthenticationMiddleware(records: records, walletLinks: walletLinks))
            .group(context: DeviceRequestContext.self)
        order.get("orders/:orderTypeIdentifier/:orderIdentifier") { request, context in try await fetchOrder(request, context) }
        // The payment providers' names for the same service: the package, and a push registration whose order is the
        // one the token authenticates. Such a registration has no device library identifier; one is derived from the
        // push token, so registering again is idempotent and pushes go out exactly as for Apple's registrations.
        order.get("packages/:orderTypeIdentifier/:orderIdentifier") { request, context in try await fetchOrder(request, context) }
        order.post("push") { request, context in
            let pushToken = try await pushToken(request)
            return try await register(device: Self.providerDevice(pushToken), pushToken: pushToken, context)
        }
        order.post("devices/:deviceLibraryIdentifier/registrations/:orderTypeIdentifier/:orderIdentifier") { request, context in
            let device = try RequestParsing.identifier("deviceLibraryIdentifier", context)
            return try await register(device: device, pushToken: try await pushToken(request), context)
        }
        order.delete("devices/:deviceLibraryIdentifier/registrations/:orderTypeIdentifier/:orderIdentifier") { _, context in
            try await devices.unregister(device: try RequestParsing.identifier("deviceLibraryIdentifier", context), from: context.order)
            // Apple documents only 200 for this call: unregistering is idempotent.
            return Response(status: .ok)
        }
    }

    // MARK: Endpoints

    /// The package carries the token the device presented: a device that added the order through a Track in Wallet
    /// link keeps the link's device token, and with it loses the order when the link ends.
    func fetchOrder(_ request: Request, _ context: DeviceRequestContext) async throws -> Response {
        let authorization = context.device
        let record = authorization.order
        var headers: HTTPFields = [.lastModified: HTTPDate.format(record.updatedAt)]
        if let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse),
            record.updatedAt.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        {
            fetches.fetched(record, status: 304)
            return Response(status: .notModified, headers: headers)
        }
        let package = try await packages.package(for: record, carrying: authorization.link)
        fetches.fetched(record, status: 200)
        headers[.contentType] = Self.packageContentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: package)))
    }

    /// Registers the device with the token the call authenticated with: 201, 200, or 429 naming the cap. A wallet link
    /// revoked or expired since the authentication is 401, as its token would be now.
    func register(device: String, pushToken: String, _ context: DeviceRequestContext) async throws -> Response {
        let outcome: RegistrationOutcome
        do {
            outcome = try await devices.register(device: device, pushToken: pushToken, for: context.device)
        } catch OrderStoreError.walletLinkClosed {
            throw AppleOrderAuthenticationMiddleware.unauthorized
        }
        switch outcome {
        case .created: return Response(status: .created)
        case .alreadyRegistered: return Response(status: .ok)
        case .limitReached(let maximum): throw APIError.registrationLimitReached(maximum: maximum)
        }
    }

    /// The device library identifier of a registration made through `POST /v1/push`.
    static func providerDevice(_ pushToken: String) -> String {
        "push-" + String(Secrets.sha256Hex(Array(pushToken.utf8)).prefix(32))
    }

    /// The body's `pushToken`, lowercase hex.
    func pushToken(_ request: Request) async throws -> String {
        let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize)
        guard let pushToken = body["pushToken"]?.stringValue else {
            throw APIError.badRequest("push_token_missing", "the body must be {\"pushToken\": \"<hex APNs device token>\"}", param: "pushToken")
        }
        guard (16...512).contains(pushToken.count), pushToken.allSatisfy(\.isHexDigit) else {
            throw APIError.badRequest(
                "push_token_invalid", "pushToken must be the device token in hexadecimal (16–512 hex digits)", param: "pushToken")
        }
        return pushToken.lowercased()
    }

    func registrations(_ request: Request, _ context: OrderTrackRequestContext) async throws -> Response {
        let device = try RequestParsing.identifier("deviceLibraryIdentifier", context)
        let orderType = try RequestParsing.identifier("orderTypeIdentifier", context)
        // The tag is ours and opaque; one we did not issue (say, a timestamp from a previous server) lists everything,
        // which costs a few fetches but never misses an update.
        let query = request.uri.queryParameters
        let tag = (query["ordersModifiedSince"] ?? query["lastModified"]).flatMap { Int64(String($0)) }
        guard let changed = try await devices.changedOrders(device: device, orderTypeIdentifier: orderType, after: tag),
            !changed.orderIdentifiers.isEmpty
        else { return Response(status: .noContent) }
        let body: JSONValue = [
            "orderIdentifiers": .array(changed.orderIdentifiers.map(JSONValue.string)), "lastModified": .string(String(changed.lastChange)),
        ]
        return body.response(from: request, context: context)
    }

    func receiveLog(_ request: Request, _ context: OrderTrackRequestContext) async throws -> Response {
        let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize)
        // Apple's LogEntries is {"logs": [...]}; some clients post the bare array.
        guard let entries = (body["logs"] ?? body).arrayValue else {
            throw APIError.badRequest("logs_missing", "the body must be {\"logs\": [\"message\", …]}", param: "logs")
        }
        deviceLog.write(entries, from: context.clientAddress ?? "unknown", to: context.logger)
        return Response(status: .ok)
    }
}

extension APIError {
    /// 429: the order has as many registered devices as allowed.
    static func registrationLimitReached(maximum: Int) -> APIError {
        APIError(
            status: .tooManyRequests, kind: .rateLimit, code: "registration_limit_reached",
            message: "this order already has \(maximum) registered devices, the most allowed (--max-registrations-per-order); unregister one first")
    }
}
