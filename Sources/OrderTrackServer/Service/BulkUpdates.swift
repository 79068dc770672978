import OrderModel
import OrderPersistence

/// Many orders changed in one request (a warehouse closing its day): each line is a PATCH of one order, validated,
/// versioned, audited and pushed exactly as `PATCH /api/v1/orders/{type}/{id}` is, through the same
/// ``OrderService/updateOrder(merchant:type:id:patch:author:allowedVersions:)``. A bad line fails alone and says why;
/// the others apply. The NDJSON of `POST /api/v1/orders/bulk` and the dashboard's CSV of fulfillment updates
/// (``FulfillmentCSV``) are two readings of the same requests.
package struct BulkUpdates: Sendable {
    let orders: OrderService

    /// Updates through `orders`' update path.
    package init(orders: OrderService) {
        self.orders = orders
    }

    /// The most lines one request may carry.
    package static let maximumLines = 10_000
    /// The longest line, in bytes: a patch as large as a whole order's lines and fulfillments, not a whole order file.
    package static let maximumLineBytes = 256 * 1024
    /// Lines read before they are applied: bounds the memory one request holds (typical lines are a few hundred bytes).
    static let chunk = 128
    /// Orders changed at once within a chunk, as many as the single PATCHes of `ordertrack bench bulk`'s 16
    /// connections (at 8, bulk reached 0.87 of them); one order's lines apply one after another, in file order.
    static let concurrency = 16

    /// One line of the file, as read.
    package struct Line: Sendable {
        /// Its number in the file, from 1.
        package var number: Int
        package var bytes: [UInt8]

        package init(number: Int, bytes: [UInt8]) {
            self.number = number
            self.bytes = bytes
        }
    }

    /// What a line asks: which order, the patch, and the versions it is meant for.
    package struct Request: Sendable {
        var orderTypeIdentifier: String?
        var orderIdentifier: String?
        var orderNumber: String?
        /// The merge patch; for a ``fulfillment`` line, the fulfillment's changed members.
        var patch: JSONValue
        var allowedVersions: Set<Int>?
        /// Set when the patch changes one fulfillment that the line may leave to be found (a CSV row).
        var fulfillment: FulfillmentTarget?

        /// Lines naming the same order apply in file order.
        var orderKey: String { "\(orderTypeIdentifier ?? "")\u{0}\(orderIdentifier ?? "#" + (orderNumber ?? ""))" }
    }

    /// The fulfillment a CSV row changes: the one it names, else the one already carrying its tracking number, else the
    /// order's only shipping fulfillment.
    struct FulfillmentTarget: Sendable {
        var fulfillmentIdentifier: String?
        var trackingNumber: String?
    }

    /// A request as read, or why its line is not one.
    package typealias ParsedLine = (line: Int, request: Result<Request, OrderTrackError>)

    /// What became of a line.
    package struct Outcome: Sendable {
        package var line: Int
        package var result: Result<Applied, any Error>
    }

    /// A line's update as applied (or found to change nothing).
    package struct Applied: Sendable {
        package var orderTypeIdentifier: String
        package var orderIdentifier: String
        package var update: OrderService.UpdatedOrder
    }

    /// Applies a chunk of lines, orders side by side, and hands each line's outcome to `emit` as its order's lines
    /// finish.
    package func apply(
        _ lines: [Line], merchant: MerchantRecord, author: OrderChangeAuthor, emit: (Outcome) async throws -> Void
    ) async throws {
        let parsed = lines.map { line in (line.number, Result { () throws(OrderTrackError) -> Request in try Self.request(line) }) }
        try await apply(parsed, merchant: merchant, author: author, emit: emit)
    }

    /// Applies requests already read (the lines' or a CSV's), orders side by side, one order's in their order.
    package func apply(
        _ requests: [ParsedLine], merchant: MerchantRecord, author: OrderChangeAuthor, emit: (Outcome) async throws -> Void
    ) async throws {
        var groups: [String: [ParsedLine]] = [:]
        var order: [String] = []
        for entry in requests {
            // A line that names no order is its own group.
            let key = (try? entry.request.get().orderKey) ?? "line \(entry.line)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(entry)
        }
        try await withThrowingTaskGroup(of: [Outcome].self) { group in
            for (index, key) in order.enumerated() {
                if index >= Self.concurrency, let done = try await group.next() {
                    for result in done { try await emit(result) }
                }
                let entries = groups[key] ?? []
                group.addTask {
                    var outcomes: [Outcome] = []
                    for (line, parsed) in entries {
                        outcomes.append(Outcome(line: line, result: await self.apply(parsed, merchant: merchant, author: author)))
                    }
                    return outcomes
                }
            }
            for try await done in group {
                for result in done { try await emit(result) }
            }
        }
    }

    private func apply(_ parsed: Result<Request, OrderTrackError>, merchant: MerchantRecord, author: OrderChangeAuthor) async
        -> Result<Applied, any Error>
    {
        do {
            let request = try parsed.get()
            let type = try await orders.orderType(merchant: merchant, named: request.orderTypeIdentifier).orderTypeIdentifier
            try author.grant?.requireOrderType(type)
            let identifier = try await orderIdentifier(request, type: type, merchant: merchant)
            var patch = request.patch
            if let target = request.fulfillment {
                let fulfillment = try await fulfillmentIdentifier(
                    target, order: try await orders.order(merchant: merchant, type: type, id: identifier))
                patch = ["fulfillments": [patch.setting("fulfillmentIdentifier", to: .string(fulfillment))]]
            }
            let updated = try await orders.updateOrder(
                merchant: merchant, type: type, id: identifier, patch: patch, author: author, allowedVersions: request.allowedVersions)
            return .success(Applied(orderTypeIdentifier: type, orderIdentifier: identifier, update: updated))
        } catch {
            return .failure(error)
        }
    }

    /// The order a line names: by its identifier, or by its number within the order type.
    private func orderIdentifier(_ request: Request, type: String, merchant: MerchantRecord) async throws -> String {
        if let identifier = request.orderIdentifier { return identifier }
        guard let number = request.orderNumber else { throw OrderTrackError(.invalidBulkLine, "name the order", field: "orderIdentifier") }
        let found = try await orders.listOrders(
            merchant: merchant, orderTypeIdentifier: type, orderNumber: number, status: nil, updatedSince: nil, cursor: nil, limit: 2)
        guard let first = found.orders.first else { throw OrderTrackError(.notFound, "no order numbered \(number) of type \(type)") }
        // Numbers stored before they were unique may be shared: the line must name the order itself.
        guard found.orders.count == 1 else {
            throw OrderTrackError(
                .invalidBulkLine, "several orders of type \(type) are numbered \(number); name one by orderIdentifier", field: "orderNumber")
        }
        return first.orderIdentifier
    }

    /// The fulfillment a row changes (see ``FulfillmentTarget``), or why the order has none that it can be.
    private func fulfillmentIdentifier(_ target: FulfillmentTarget, order: OrderRecord) async throws -> String {
        if let named = target.fulfillmentIdentifier { return named }
        let document = try await orders.cpu.run { try JSONValue.parse(order.document) }
        let fulfillments = document["fulfillments"]?.arrayValue ?? []
        let identifier = { (fulfillment: JSONValue) in fulfillment["fulfillmentIdentifier"]?.stringValue }
        if let number = target.trackingNumber,
            let carrying = fulfillments.first(where: { $0["trackingNumber"]?.stringValue == number }).flatMap(identifier)
        {
            return carrying
        }
        let shipping = fulfillments.filter { $0["fulfillmentType"]?.stringValue == "shipping" }.compactMap(identifier)
        guard shipping.count == 1 else {
            let reason =
                shipping.isEmpty
                ? "order \(order.orderIdentifier) has no shipping fulfillment; name one in a fulfillmentIdentifier column"
                : "order \(order.orderIdentifier) has \(shipping.count) shipping fulfillments (\(shipping.joined(separator: ", "))); name one in a fulfillmentIdentifier column"
            throw OrderTrackError(.invalidBulkLine, reason, field: "fulfillmentIdentifier")
        }
        return shipping[0]
    }

    static let fields: Set = ["orderTypeIdentifier", "orderIdentifier", "orderNumber", "patch", "ifMatch"]

    /// Reads a line: `{"orderTypeIdentifier"?, "orderIdentifier" or "orderNumber", "patch": {…}, "ifMatch"?}`.
    static func request(_ line: Line) throws(OrderTrackError) -> Request {
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue.parse(line.bytes)
        } catch {
            throw OrderTrackError(.invalidBulkLine, "the line is not JSON: \(error)")
        }
        guard let members = value.objectValue else {
            throw OrderTrackError(.invalidBulkLine, "each line must be a JSON object such as {\"orderNumber\": \"1001\", \"patch\": {…}}")
        }
        if let unknown = members.keys.sorted().first(where: { !fields.contains($0) }) {
            throw OrderTrackError(
                .invalidBulkLine, "\(unknown) is not a field of a bulk line; use \(fields.sorted().joined(separator: ", "))", field: unknown)
        }
        func identifier(_ name: String) throws(OrderTrackError) -> String? {
            guard let member = members[name] else { return nil }
            guard let text = member.stringValue, Identifiers.isValid(text) else {
                throw OrderTrackError(.invalidBulkLine, "\(name) must be \(Identifiers.rule)", field: name)
            }
            return text
        }
        let type = try identifier("orderTypeIdentifier")
        let orderIdentifier = try identifier("orderIdentifier")
        var orderNumber: String?
        if let member = members["orderNumber"] {
            guard let text = member.stringValue, !text.isEmpty else {
                throw OrderTrackError(.invalidBulkLine, "orderNumber must be a non-empty string", field: "orderNumber")
            }
            orderNumber = text
        }
        guard (orderIdentifier == nil) != (orderNumber == nil) else {
            throw OrderTrackError(.invalidBulkLine, "name the order by orderIdentifier or by orderNumber (one of them)", field: "orderIdentifier")
        }
        guard let patch = members["patch"], patch.objectValue != nil else {
            throw OrderTrackError(.invalidBulkLine, "patch is required: a JSON merge patch object, as PATCH takes", field: "patch")
        }
        var allowedVersions: Set<Int>?
        switch members["ifMatch"] {
        case nil: break
        case .number(let text)?:
            guard let version = Int(text), version > 0 else {
                throw OrderTrackError(.invalidBulkLine, "ifMatch must be the version a PATCH's If-Match names, such as 3", field: "ifMatch")
            }
            allowedVersions = [version]
        case .string(let text)?:
            // The ETag as the API shows it ("3", quotes included) or bare.
            let bare = text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2 ? String(text.dropFirst().dropLast()) : text
            guard let version = Int(bare), version > 0 else {
                throw OrderTrackError(.invalidBulkLine, "ifMatch must be the version a PATCH's If-Match names, such as 3", field: "ifMatch")
            }
            allowedVersions = [version]
        default:
            throw OrderTrackError(.invalidBulkLine, "ifMatch must be the version a PATCH's If-Match names, such as 3", field: "ifMatch")
        }
        return Request(
            orderTypeIdentifier: type, orderIdentifier: orderIdentifier, orderNumber: orderNumber, patch: patch, allowedVersions: allowedVersions)
    }
}
