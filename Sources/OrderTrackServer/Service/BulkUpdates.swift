import OrderModel
import OrderPersistence

/// Many orders changed in one request (a warehouse closing its day): each line is a PATCH of one order, validated,
/// versioned, audited and pushed exactly as `PATCH /api/v1/orders/{type}/{id}` is, through the same
/// ``OrderService/updateOrder(merchant:type:id:patch:author:allowedVersions:)``. A bad line fails alone and says why;
/// the others apply.
package struct BulkUpdates: Sendable {
    let orders: OrderService

    /// The most lines one request may carry.
    package static let maximumLines = 10_000
    /// The longest line, in bytes: a patch as large as a whole order's lines and fulfillments, not a whole order file.
    package static let maximumLineBytes = 256 * 1024
    /// Lines read before they are applied: bounds the memory one request holds.
    static let chunk = 64
    /// Orders changed at once within a chunk; one order's lines apply one after another, in file order.
    static let concurrency = 8

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
    struct Request: Sendable {
        var orderTypeIdentifier: String?
        var orderIdentifier: String?
        var orderNumber: String?
        var patch: JSONValue
        var allowedVersions: Set<Int>?

        /// Lines naming the same order apply in file order.
        var orderKey: String { "\(orderTypeIdentifier ?? "")\u{0}\(orderIdentifier ?? "#" + (orderNumber ?? ""))" }
    }

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
        var groups: [String: [(Line, Result<Request, OrderTrackError>)]] = [:]
        var order: [String] = []
        for line in lines {
            let parsed = Result { () throws(OrderTrackError) -> Request in try Self.request(line) }
            // A line that names no order is its own group.
            let key = (try? parsed.get().orderKey) ?? "line \(line.number)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append((line, parsed))
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
                        outcomes.append(Outcome(line: line.number, result: await self.apply(parsed, merchant: merchant, author: author)))
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
            let updated = try await orders.updateOrder(
                merchant: merchant, type: type, id: identifier, patch: request.patch, author: author, allowedVersions: request.allowedVersions)
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
