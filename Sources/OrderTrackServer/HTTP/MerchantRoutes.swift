import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OrderModel
import OrderPersistence
import OrderSigning
import RequestSyntax

/// The merchant API under `/api/v1`, authenticated by secret API key.
struct MerchantRoutes: Sendable {
    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!
    static let maximumAssetSize = 1024 * 1024

    let store: any OrderStore
    let orders: OrderService
    let packages: PackageService
    /// Where merchant bodies and order documents (megabytes each) are parsed and serialized.
    let cpu: CPUWorkPool
    let maximumBodySize: Int
    /// Forgets the APNs connections of an order type whose credentials changed.
    let orderTypeChanged: @Sendable (String) async -> Void

    func add(to router: Router<BasicRequestContext>) {
        let api = router.group("api/v1")
        api.post("orders") { request, context in try await createOrder(request, context) }
        api.get("orders") { request, context in try await listOrders(request, context) }
        api.get("orders/:orderTypeIdentifier/:orderIdentifier") { request, context in
            let merchant = try await authenticate(request)
            let record = try await orders.order(
                merchant: merchant, type: try RequestParsing.identifier("orderTypeIdentifier", context),
                id: try RequestParsing.identifier("orderIdentifier", context))
            return try await ordersJSON(.ok) { ["order": try orderJSON(record)] }
        }
        api.patch("orders/:orderTypeIdentifier/:orderIdentifier") { request, context in
            let merchant = try await authenticate(request)
            let patch = try await RequestParsing.jsonBody(request, limit: maximumBodySize, on: cpu)
            let (record, changed) = try await orders.updateOrder(
                merchant: merchant, type: try RequestParsing.identifier("orderTypeIdentifier", context),
                id: try RequestParsing.identifier("orderIdentifier", context), patch: patch)
            return try await ordersJSON(.ok) { ["order": try orderJSON(record), "changed": .bool(changed)] }
        }
        api.post("orders/:orderTypeIdentifier/:orderIdentifier/notify") { request, context in
            let merchant = try await authenticate(request)
            let count = try await orders.notifyDevices(
                merchant: merchant, type: try RequestParsing.identifier("orderTypeIdentifier", context),
                id: try RequestParsing.identifier("orderIdentifier", context))
            return try json(.accepted, ["registrations": .integer(count)])
        }
        api.get("orders/:orderTypeIdentifier/:orderIdentifier/pushes") { request, context in
            let merchant = try await authenticate(request)
            let record = try await orders.order(
                merchant: merchant, type: try RequestParsing.identifier("orderTypeIdentifier", context),
                id: try RequestParsing.identifier("orderIdentifier", context))
            let limitText = request.uri.queryParameters["limit"].map(String.init) ?? "100"
            guard let limit = Int(limitText), (1...1000).contains(limit) else {
                throw APIError.badRequest("limit_invalid", "limit must be a whole number from 1 to 1000", param: "limit")
            }
            let entries = try await store.pushLog(
                orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier, limit: limit)
            return try json(.ok, ["data": .array(entries.map(pushLogJSON))])
        }
        api.post("apple_pay/order_tracking/notify") { request, context in try await notifyForm(request, context) }
        api.get("orders/:orderTypeIdentifier/:orderIdentifier/package") { request, context in
            let merchant = try await authenticate(request)
            let (record, package) = try await orders.package(
                merchant: merchant, type: try RequestParsing.identifier("orderTypeIdentifier", context),
                id: try RequestParsing.identifier("orderIdentifier", context))
            let orderNumber = try await cpu.run { try JSONValue.parse(record.document)["orderNumber"]?.stringValue }
            let fileName = (orderNumber ?? record.orderIdentifier).filter { $0.isLetter || $0.isNumber || "-_.".contains($0) }
            return Response(
                status: .ok,
                headers: [
                    .contentType: WalletRoutes.packageContentType,
                    .contentDisposition: "attachment; filename=\"\(fileName.isEmpty ? "order" : fileName).order\"",
                    .lastModified: HTTPDate.format(record.updatedAt),
                ], body: ResponseBody(byteBuffer: ByteBuffer(bytes: package)))
        }
        api.put("assets/**") { request, context in try await putAsset(request, context) }
        api.get("assets/**") { request, context in
            let merchant = try await authenticate(request)
            guard let asset = try await store.asset(merchantID: merchant.id, name: try assetName(context)) else {
                throw APIError.notFound("no asset named \(try assetName(context))")
            }
            return Response(
                status: .ok, headers: [.contentType: asset.info.contentType], body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
        }
        api.delete("assets/**") { request, context in
            let merchant = try await authenticate(request)
            let name = try assetName(context)
            let previous = try await store.asset(merchantID: merchant.id, name: name)?.info.sha256
            guard try await store.deleteAsset(merchantID: merchant.id, name: name) else { throw APIError.notFound("no asset named \(name)") }
            if let previous { packages.forgetAssetContent(previous) }
            return Response(status: .noContent)
        }
        api.get("assets") { request, _ in
            let merchant = try await authenticate(request)
            let assets = try await store.assets(merchantID: merchant.id)
            return try json(.ok, ["data": .array(assets.map(assetJSON))])
        }
        api.put("order-types/:orderTypeIdentifier") { request, context in try await putOrderType(request, context) }
        api.get("order-types") { request, _ in
            let merchant = try await authenticate(request)
            let types = try await store.orderTypes(merchantID: merchant.id)
            var data: [JSONValue] = []
            for type in types { data.append(try await orderTypeJSON(type)) }
            return try json(.ok, ["data": .array(data)])
        }
    }

    // MARK: Orders

    func createOrder(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let merchant = try await authenticate(request)
        let body = try await RequestParsing.body(request, limit: maximumBodySize)
        let idempotencyKey = request.headers[Self.idempotencyKeyHeader]
        let requestHash = Secrets.sha256Hex(Array("POST /api/v1/orders\n".utf8) + body)
        if let idempotencyKey {
            guard (1...255).contains(idempotencyKey.utf8.count) else {
                throw APIError.badRequest("idempotency_key_invalid", "Idempotency-Key must be 1–255 characters")
            }
            if let saved = try await store.idempotentResponse(merchantID: merchant.id, key: idempotencyKey) {
                return try replay(saved, requestHash: requestHash)
            }
        }
        let content = try await cpu.run { try RequestParsing.json(body) }
        let idempotency = idempotencyKey.map { OrderService.IdempotentRequest(key: $0, requestHash: requestHash) }
        let outcome = try await orders.createOrder(merchant: merchant, content: content, idempotency: idempotency) { created in
            let response: JSONValue = [
                "order": created.document,
                "orderDetails": [
                    "orderTypeIdentifier": .string(created.record.orderTypeIdentifier),
                    "orderIdentifier": .string(created.record.orderIdentifier),
                    "webServiceURL": .string(orders.webServiceURL),
                    "authenticationToken": .string(created.record.authenticationToken),
                ],
                "warnings": .array(created.warnings.map { ["path": .string($0.path), "message": .string($0.message)] }),
            ]
            return response.serialized()
        }
        switch outcome {
        case .created(_, let body):
            return Response(status: .created, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
        case .replayed(let saved):
            return try replay(saved, requestHash: requestHash)
        }
    }

    func replay(_ saved: IdempotencyRecord, requestHash: String) throws -> Response {
        guard saved.requestHash == requestHash else {
            throw APIError.conflict(
                "idempotency_key_reused", "this Idempotency-Key was already used with a different request body; use a new key for a new order")
        }
        return Response(
            status: HTTPResponse.Status(code: saved.status), headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: saved.body)))
    }

    func listOrders(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let merchant = try await authenticate(request)
        let query = request.uri.queryParameters
        let limitText = query["limit"].map(String.init) ?? "20"
        guard let limit = Int(limitText), (1...100).contains(limit) else {
            throw APIError.badRequest("limit_invalid", "limit must be a whole number from 1 to 100", param: "limit")
        }
        var updatedSince: Date?
        if let text = query["updatedSince"].map(String.init) {
            guard let date = DateTimeFormat.parseRFC3339(text) else {
                throw APIError.badRequest(
                    "updated_since_invalid", "updatedSince must be an RFC 3339 date-time like 2026-11-21T10:00:00Z", param: "updatedSince")
            }
            updatedSince = date
        }
        let status = query["status"].map(String.init)
        if let status, !OrderSchema.orderStatuses.contains(status) {
            throw APIError.badRequest("status_invalid", "status must be one of \(OrderSchema.orderStatuses.joined(separator: ", "))", param: "status")
        }
        let page: OrderPage
        do {
            page = try await store.listOrders(
                merchantID: merchant.id, orderTypeIdentifier: query["orderTypeIdentifier"].map(String.init), status: status,
                updatedSince: updatedSince, after: query["cursor"].map(String.init), limit: limit)
        } catch OrderStoreError.invalidCursor {
            throw APIError.badRequest("cursor_invalid", "cursor must be a nextCursor value returned by this endpoint", param: "cursor")
        }
        return try await ordersJSON(.ok) {
            ["data": .array(try page.orders.map(orderJSON)), "nextCursor": page.nextCursor.map(JSONValue.string) ?? .null]
        }
    }

    /// The form-encoded notification that payment providers document (`order_type_identifier`, `order_identifier`).
    func notifyForm(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let merchant = try await authenticate(request)
        let fields = FormURLEncoded.parse(try await RequestParsing.body(request, limit: maximumBodySize))
        guard let type = FormURLEncoded.value("order_type_identifier", in: fields), let id = FormURLEncoded.value("order_identifier", in: fields)
        else {
            throw APIError.badRequest("fields_missing", "the form body needs order_type_identifier and order_identifier")
        }
        let count = try await orders.notifyDevices(merchant: merchant, type: type, id: id)
        return try json(.accepted, ["registrations": .integer(count)])
    }

    // MARK: Assets and order types

    func putAsset(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let merchant = try await authenticate(request)
        let name = try assetName(context)
        let bytes = try await RequestParsing.body(request, limit: Self.maximumAssetSize)
        let detected = FileType.detect(bytes)
        let isStrings = name.hasSuffix(".strings")
        if isStrings {
            do {
                _ = try StringsFile.parse(bytes)
            } catch {
                throw APIError.badRequest("strings_invalid", "\(name) is not a valid .strings file: \(error)")
            }
        } else if detected == .other {
            throw APIError.badRequest(
                "asset_type_invalid", "assets must be PNG, JPEG or PDF files, or .lproj/order.strings localizations; \(name) is neither")
        }
        let contentType = isStrings ? "text/plain; charset=utf-8" : detected.mediaType!
        let previous = try await store.asset(merchantID: merchant.id, name: name)?.info.sha256
        let info = try await store.putAsset(
            merchantID: merchant.id, name: name, contentType: contentType, bytes: bytes, sha256: Secrets.sha256Hex(bytes))
        if let previous, previous != info.sha256 { packages.forgetAssetContent(previous) }
        return try json(.ok, ["asset": assetJSON(info)])
    }

    /// `logo.png` or `fr.lproj/logo.png`: the path the file will have inside packages.
    func assetName(_ context: BasicRequestContext) throws -> String {
        let components = context.parameters.getCatchAll().map { String($0).removingPercentEncoding ?? "" }
        let name = components.joined(separator: "/")
        let valid =
            (1...2).contains(components.count) && components.allSatisfy { OrderService.isValidIdentifier($0) && !$0.hasPrefix(".") }
            && (components.count == 1 || components[0].hasSuffix(".lproj"))
            && (name.hasSuffix("order.strings") ? components.count == 2 : !name.hasSuffix(".strings"))
        guard valid else {
            throw APIError.badRequest(
                "asset_name_invalid",
                "asset names are a file name (logo.png) or a localized one (fr.lproj/logo.png, fr.lproj/order.strings) of A–Z, a–z, 0–9 and ._~:@+-")
        }
        return name
    }

    func assetJSON(_ info: AssetInfo) -> JSONValue {
        [
            "name": .string(info.name), "contentType": .string(info.contentType), "size": .integer(info.size), "sha256": .string(info.sha256),
            "updatedAt": .string(DateTimeFormat.formatRFC3339(info.updatedAt)),
        ]
    }

    /// Configures an order type with a PKCS#12 signing identity: `{"pkcs12": "<base64>", "password": "…", "wwdrPEM": "…"}`.
    func putOrderType(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let merchant = try await authenticate(request)
        let orderType = try RequestParsing.identifier("orderTypeIdentifier", context)
        let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize, on: cpu)
        guard let encoded = body["pkcs12"]?.stringValue, let pkcs12 = Data(base64Encoded: encoded) else {
            throw APIError.badRequest(
                "pkcs12_missing", "the body needs pkcs12: the Order Type ID certificate and key as a base64 PKCS#12 (.p12) file", param: "pkcs12")
        }
        let configuration = IdentityConfig.pkcs12(
            bytes: Array(pkcs12), password: body["password"]?.stringValue ?? "", wwdrPEM: body["wwdrPEM"]?.stringValue)
        let identity: SigningIdentity
        do {
            identity = try await Administration(store: store, parseIdentity: { try await packages.parse($0) })
                .setOrderType(merchantID: merchant.id, orderTypeIdentifier: orderType, identity: configuration)
        } catch let error as AdministrationError {
            throw APIError(status: .unprocessableContent, kind: .invalidRequest, code: "order_type_rejected", message: error.message, param: "pkcs12")
        }
        // Parsed once: packages and pushes use this identity rather than parsing the PKCS#12 again.
        packages.invalidateIdentity(orderType, replacement: (configuration, identity))
        await orderTypeChanged(orderType)
        guard let stored = try await store.orderType(orderType) else { throw APIError.notFound("order type \(orderType) vanished") }
        return try json(.ok, ["orderType": try await orderTypeJSON(stored)])
    }

    func orderTypeJSON(_ record: OrderTypeRecord) async throws -> JSONValue {
        var body: [String: JSONValue] = ["orderTypeIdentifier": .string(record.orderTypeIdentifier)]
        if let identity = try? await packages.identity(for: record.orderTypeIdentifier) {
            body["certificateSubject"] = .string(String(describing: identity.certificate.subject))
            body["certificateNotValidAfter"] = .string(DateTimeFormat.formatRFC3339(identity.notValidAfter))
        }
        return .object(body)
    }

    /// One push attempt as merchants see it: when, which device (token suffix), what APNs said.
    func pushLogJSON(_ entry: PushLogEntry) -> JSONValue {
        var body: [String: JSONValue] = [
            "at": .string(DateTimeFormat.formatRFC3339(entry.at)), "tokenSuffix": .string(entry.tokenSuffix),
            "attempt": .integer(entry.attempt), "outcome": .string(entry.outcome.rawValue),
        ]
        body["apnsStatus"] = entry.status.map(JSONValue.integer) ?? .null
        body["reason"] = entry.reason.map(JSONValue.string) ?? .null
        body["apnsID"] = entry.apnsID.map(JSONValue.string) ?? .null
        return .object(body)
    }

    // MARK: Helpers

    /// The merchant whose API key the request carries: `Authorization: Bearer sk_…` or HTTP Basic with the key as user name.
    func authenticate(_ request: Request) async throws -> MerchantRecord {
        let missing = APIError.unauthorized("authenticate with your secret API key: Authorization: Bearer sk_… (or curl -u sk_…:)")
        let key: String
        switch request.headers[.authorization].flatMap(AuthorizationCredentials.parse) {
        case .bearer(let token): key = token
        case .basic(let user, _): key = user
        case .appleOrder, nil: throw missing
        }
        // Lookup by SHA-256: the stored hash reveals nothing, and equality on it leaks nothing about the key.
        guard key.hasPrefix("sk_"), let merchant = try await store.merchant(forAPIKeyHash: Secrets.sha256Hex(Array(key.utf8))) else {
            throw APIError.unauthorized("the API key is not valid")
        }
        return merchant
    }

    /// An order's stored document, for a response.
    func orderJSON(_ record: OrderRecord) throws -> JSONValue {
        try JSONValue.parse(record.document)
    }

    /// A JSON response made of order documents (megabytes each), parsed and serialized on the CPU pool.
    func ordersJSON(_ status: HTTPResponse.Status, _ body: @escaping @Sendable () throws -> JSONValue) async throws -> Response {
        let bytes = try await cpu.run { try body().serialized() }
        return Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    func json(_ status: HTTPResponse.Status, _ body: JSONValue) throws -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body.serialized())))
    }
}
