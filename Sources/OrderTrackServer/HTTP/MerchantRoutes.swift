import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OrderModel
import OrderPersistence
import OrderSigning

/// The merchant API under `/api/v1`, authenticated by secret API key (``MerchantAuthenticationMiddleware``).
///
/// Routes read the request and shape the response; the services do the work and throw ``OrderTrackError``s, which
/// the error envelope maps to statuses.
package struct MerchantRoutes: Sendable {
    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!
    static let maximumAssetSize = 1024 * 1024

    let orders: OrderService
    let assets: AssetService
    let administration: Administration
    let packages: PackageService
    /// Where merchant bodies and order documents (megabytes each) are parsed and serialized.
    let cpu: CPUWorkPool
    let maximumBodySize: Int
    /// Checks and stores uploaded order type credentials (shared with the dashboard).
    let orderTypes: OrderTypeService
    /// Records when each API key was last used.
    let keyUses: APIKeyUseRecorder
    let now: @Sendable () -> Date

    /// Adds the routes and returns their authenticated group, for other merchant routes to join.
    @discardableResult
    func add(to router: Router<OrderTrackRequestContext>) -> RouterGroup<MerchantRequestContext> {
        let api = router.group("api/v1").add(
            middleware: MerchantAuthenticationMiddleware(administration: administration, uses: keyUses, now: now)
        ).group(context: MerchantRequestContext.self)
        api.post("orders") { request, context in try await createOrder(request, context) }
        api.get("orders") { request, context in try await listOrders(request, context) }
        api.post("orders/validate") { request, context in
            let body = try await RequestParsing.body(request, limit: maximumBodySize)
            return Self.validationJSON(try await orders.validate(merchant: context.merchant, orderJSON: body))
        }
        api.get("orders/:orderTypeIdentifier/:orderIdentifier") { _, context in
            let record = try await orders.order(merchant: context.merchant, type: try type(context), id: try id(context))
            var answer = try await ordersJSON { ["order": try orderJSON(record, context)] }
            answer.headers[.eTag] = OrderETag.value(version: record.version)
            return answer
        }
        api.patch("orders/:orderTypeIdentifier/:orderIdentifier") { request, context in
            let allowedVersions = try OrderETag.allowedVersions(request)
            // The service parses the patch with the order, on one CPU-pool job.
            let patch = try await RequestParsing.body(request, limit: maximumBodySize)
            let updated = try await orders.updateOrder(
                merchant: context.merchant, type: try type(context), id: try id(context), patch: patch, author: context.author(.merchantAPI),
                allowedVersions: allowedVersions)
            // A key that may not read the order (fulfillments:write alone) learns what happened, not the order.
            let mayRead = context.grant?.has(.ordersRead) ?? true
            var answer = try await ordersJSON {
                var body: JSONValue = [
                    "changed": .bool(updated.changed), "version": .integer(updated.record.version),
                    "warnings": .array(updated.warnings.map(\.warningJSON)),
                ]
                if mayRead { body["order"] = orderJSON(updated.document, context) }
                return body
            }
            answer.headers[.eTag] = OrderETag.value(version: updated.record.version)
            return answer
        }
        // For a leaked token: the old one stops working, and the answer's orderDetails add the order again.
        api.post("orders/:orderTypeIdentifier/:orderIdentifier/rotate-token") { _, context in
            let rotated = try await orders.rotateAuthenticationToken(
                merchant: context.merchant, type: try type(context), id: try id(context), author: context.author(.merchantAPI))
            var answer = try await ordersJSON {
                [
                    "order": orderJSON(rotated.document, context),
                    "orderDetails": OrderService.orderDetails(rotated.record, webServiceURL: orders.webServiceURL),
                ]
            }
            answer.headers[.eTag] = OrderETag.value(version: rotated.record.version)
            answer.headers[.cacheControl] = "no-store"
            return answer
        }
        api.post("orders/:orderTypeIdentifier/:orderIdentifier/notify") { _, context in
            let count = try await orders.notifyDevices(merchant: context.merchant, type: try type(context), id: try id(context))
            return EditedResponse(status: .accepted, response: ["registrations": .integer(count)] as JSONValue)
        }
        api.get("orders/:orderTypeIdentifier/:orderIdentifier/pushes") { request, context in
            let (orderType, orderID) = (try type(context), try id(context))
            let limit = try RequestParsing.limit(request, default: 100, maximum: 1000)
            let entries = try await orders.pushLog(merchant: context.merchant, type: orderType, id: orderID, limit: limit)
            return ["data": .array(entries.map(pushLogJSON))] as JSONValue
        }
        api.get("orders/:orderTypeIdentifier/:orderIdentifier/history") { request, context in
            let (orderType, orderID) = (try type(context), try id(context))
            let limit = try RequestParsing.limit(request, default: 100, maximum: 1000)
            let entries = try await orders.history(merchant: context.merchant, type: orderType, id: orderID, limit: limit)
            return try await cpu.run { SerializedJSON(bytes: (["data": .array(try entries.map(Self.historyJSON))] as JSONValue).serialized()) }
        }
        api.post("apple_pay/order_tracking/notify") { request, context in try await notifyForm(request, context) }
        api.get("orders/:orderTypeIdentifier/:orderIdentifier/package") { _, context in
            let (record, package) = try await orders.package(merchant: context.merchant, type: try type(context), id: try id(context))
            return Self.packageDownload(record, package)
        }
        api.put("assets/**") { request, context in
            let name = try assetName(context)
            let bytes = try await RequestParsing.body(request, limit: Self.maximumAssetSize)
            let info = try await assets.put(merchant: context.merchant, name: name, bytes: bytes)
            return ["asset": assetJSON(info)] as JSONValue
        }
        api.get("assets/**") { _, context in
            let asset = try await assets.asset(merchant: context.merchant, name: try assetName(context))
            return Response(
                status: .ok, headers: [.contentType: asset.info.contentType], body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
        }
        api.delete("assets/**") { _, context in
            try await assets.delete(merchant: context.merchant, name: try assetName(context))
            return Response(status: .noContent)
        }
        api.get("assets") { _, context in
            ["data": .array(try await assets.assets(merchant: context.merchant).map(assetJSON))] as JSONValue
        }
        api.put("order-types/:orderTypeIdentifier") { request, context in try await putOrderType(request, context) }
        api.get("order-types") { _, context in
            let merchantID = context.merchant.id
            let chosen = try await administration.defaultOrderType(merchantID: merchantID)
            var data: [JSONValue] = []
            for type in try await administration.orderTypes(merchantID: merchantID) {
                var entry = await orderTypeJSON(type.orderTypeIdentifier)
                entry["default"] = .bool(type.orderTypeIdentifier == chosen)
                data.append(entry)
            }
            return ["data": .array(data), "defaultOrderTypeIdentifier": chosen.map(JSONValue.string) ?? .null] as JSONValue
        }
        api.put("order-types/:orderTypeIdentifier/default") { _, context in
            let type = try type(context)
            try await administration.setDefaultOrderType(merchantID: context.merchant.id, orderTypeIdentifier: type)
            return ["defaultOrderTypeIdentifier": .string(type)] as JSONValue
        }
        return api
    }

    // MARK: Orders

    func createOrder(_ request: Request, _ context: MerchantRequestContext) async throws -> Response {
        let merchant = context.merchant
        let body = try await RequestParsing.body(request, limit: maximumBodySize)
        var idempotency: OrderService.IdempotentRequest?
        if let key = try Self.idempotencyKey(request) {
            let idempotent = OrderService.IdempotentRequest(key: key, requestHash: Secrets.sha256Hex(Array("POST /api/v1/orders\n".utf8) + body))
            if let saved = try await orders.savedResponse(merchant: merchant, idempotency: idempotent, grant: context.grant) {
                return try replay(saved, request, context)
            }
            idempotency = idempotent
        }
        let content = try await cpu.run { try RequestParsing.json(body) }
        let outcome = try await orders.createOrder(
            merchant: merchant, content: content, idempotency: idempotency, author: context.author(.merchantAPI)
        ) { created in
            created.responseJSON(webServiceURL: orders.webServiceURL).serialized()
        }
        switch outcome {
        case .created(let created, let body):
            let answer = SerializedJSON(bytes: body, headers: [.eTag: OrderETag.value(version: created.record.version)])
            return try EditedResponse(status: .created, response: answer).response(from: request, context: context)
        case .replayed(let saved):
            return try replay(saved, request, context)
        }
    }

    /// The request's `Idempotency-Key`, if it sent one: 1–255 characters.
    package static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[idempotencyKeyHeader] else { return nil }
        guard (1...255).contains(key.utf8.count) else {
            throw APIError.badRequest("idempotency_key_invalid", "Idempotency-Key must be 1–255 characters")
        }
        return key
    }

    /// The response stored under an idempotency key, with its status.
    func replay(_ saved: IdempotencyRecord, _ request: Request, _ context: MerchantRequestContext) throws -> Response {
        try EditedResponse(status: HTTPResponse.Status(code: saved.status), response: SerializedJSON(bytes: saved.body))
            .response(from: request, context: context)
    }

    func listOrders(_ request: Request, _ context: MerchantRequestContext) async throws -> SerializedJSON {
        let query = request.uri.queryParameters
        let limit = try RequestParsing.limit(request, default: 20, maximum: 100)
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
        let page = try await orders.listOrders(
            merchant: context.merchant, orderTypeIdentifier: query["orderTypeIdentifier"].map(String.init),
            orderNumber: query["orderNumber"].map(String.init), status: status,
            updatedSince: updatedSince, cursor: query["cursor"].map(String.init), limit: limit)
        return try await ordersJSON {
            ["data": .array(try page.orders.map { try orderJSON($0, context) }), "nextCursor": page.nextCursor.map(JSONValue.string) ?? .null]
        }
    }

    /// The form-encoded notification that payment providers document.
    struct NotifyForm: Decodable {
        var orderTypeIdentifier: String?
        var orderIdentifier: String?

        enum CodingKeys: String, CodingKey {
            case orderTypeIdentifier = "order_type_identifier"
            case orderIdentifier = "order_identifier"
        }
    }

    func notifyForm(_ request: Request, _ context: MerchantRequestContext) async throws -> EditedResponse<JSONValue> {
        let body = try await RequestParsing.body(request, limit: maximumBodySize)
        let form: NotifyForm
        do {
            form = try URLEncodedFormDecoder().decode(NotifyForm.self, from: String(decoding: body, as: UTF8.self))
        } catch let error as URLEncodedFormError {
            throw APIError.badRequest("form_invalid", "the body is not a valid form (application/x-www-form-urlencoded): \(error)")
        } catch {
            throw APIError.badRequest("form_invalid", "order_type_identifier and order_identifier must be plain form fields")
        }
        guard let type = form.orderTypeIdentifier, let id = form.orderIdentifier else {
            throw APIError.badRequest("fields_missing", "the form body needs order_type_identifier and order_identifier")
        }
        // The order type is in the body here, not the path the authentication middleware checks.
        try context.grant?.requireOrderType(type)
        let count = try await orders.notifyDevices(merchant: context.merchant, type: type, id: id)
        return EditedResponse(status: .accepted, response: ["registrations": .integer(count)])
    }

    // MARK: Assets and order types

    /// `logo.png` or `fr.lproj/logo.png`: the path the file will have inside packages.
    func assetName(_ context: MerchantRequestContext) throws -> String {
        let components = context.parameters.getCatchAll().map { String($0).removingPercentEncoding ?? "" }
        let name = components.joined(separator: "/")
        let valid =
            (1...2).contains(components.count) && components.allSatisfy { Identifiers.isValid($0) && !$0.hasPrefix(".") }
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
    func putOrderType(_ request: Request, _ context: MerchantRequestContext) async throws -> JSONValue {
        let merchant = context.merchant
        let orderType = try type(context)
        let body = try await RequestParsing.jsonBody(request, limit: maximumBodySize, on: cpu)
        try await orderTypes.configure(
            merchant: merchant, orderTypeIdentifier: orderType, identity: try OrderTypeService.identity(from: body), apnsToken: nil)
        return ["orderType": await orderTypeJSON(orderType)]
    }

    func orderTypeJSON(_ orderTypeIdentifier: String) async -> JSONValue {
        var body: [String: JSONValue] = ["orderTypeIdentifier": .string(orderTypeIdentifier)]
        if let identity = try? await packages.identity(for: orderTypeIdentifier) {
            body["certificateSubject"] = .string(String(describing: identity.certificate.subject))
            body["certificateNotValidAfter"] = .string(DateTimeFormat.formatRFC3339(identity.notValidAfter))
        }
        return .object(body)
    }

    /// A signed package as a download named after the order number (the identifier when it has none).
    package static func packageDownload(_ record: OrderRecord, _ package: [UInt8]) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: WalletRoutes.packageContentType,
                .contentDisposition: ContentDisposition.value(
                    "attachment", name: record.orderNumber ?? record.orderIdentifier, fileExtension: "order", fallback: "order"),
                .lastModified: HTTPDate.format(record.updatedAt),
            ], body: ResponseBody(byteBuffer: ByteBuffer(bytes: package)))
    }

    /// A validation report as `POST /orders/validate` answers it: every problem with its JSON path, errors and
    /// warnings alike; `valid` is false when any is an error.
    package static func validationJSON(_ report: ValidationReport) -> JSONValue {
        [
            "valid": .bool(report.isValid),
            "problems": .array(
                report.problems.map { ["path": .string($0.path), "message": .string($0.message), "severity": .string($0.severity.rawValue)] }),
        ]
    }

    /// One change of an order as its history shows it: when, which key (id and name; the dashboard has no key id),
    /// from which address, and the diff (``JSONDiff``'s `{pointer: {"from", "to"}}`).
    static func historyJSON(_ entry: OrderActivity) throws -> JSONValue {
        [
            "at": .string(DateTimeFormat.formatRFC3339(entry.at)), "version": entry.version.map(JSONValue.integer) ?? .null,
            "keyId": entry.keyID.map(JSONValue.string) ?? .null, "keyName": (entry.keyName ?? entry.author).map(JSONValue.string) ?? .null,
            "address": entry.address.map(JSONValue.string) ?? .null, "diff": try entry.diff.map { try JSONValue.parse(Array($0.utf8)) } ?? .null,
        ]
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

    func type(_ context: MerchantRequestContext) throws -> String { try RequestParsing.identifier("orderTypeIdentifier", context) }

    func id(_ context: MerchantRequestContext) throws -> String { try RequestParsing.identifier("orderIdentifier", context) }

    /// An order's stored document, for a response.
    /// An order as an answer shows it: without the device `authenticationToken` to a key lacking `order-tokens:read`.
    func orderJSON(_ record: OrderRecord, _ context: MerchantRequestContext) throws -> JSONValue {
        orderJSON(try JSONValue.parse(record.document), context)
    }

    /// An order document as the caller may see it: without its authenticationToken for a key lacking
    /// `order-tokens:read`.
    func orderJSON(_ document: JSONValue, _ context: MerchantRequestContext) -> JSONValue {
        context.grant?.has(.orderTokensRead) == false ? document.setting("authenticationToken", to: nil) : document
    }

    /// A JSON response made of order documents (megabytes each), parsed and serialized on the CPU pool.
    func ordersJSON(_ body: @escaping @Sendable () throws -> JSONValue) async throws -> SerializedJSON {
        SerializedJSON(bytes: try await cpu.run { try body().serialized() })
    }
}
