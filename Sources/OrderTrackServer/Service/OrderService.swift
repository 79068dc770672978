import CarrierTracking
import Foundation
import Logging
import OrderModel
import OrderPersistence

/// Creating, changing and reading orders on behalf of merchants, independent of HTTP.
package struct OrderService: Sendable {
    let store: any OrderRecordStore & OrderTypeStore & OrderActivityStore & RegistrationStore & MerchantStore & APIKeyStore
    /// Told of every order written here.
    let records: OrderRecordCache
    let packages: PackageService
    let notifier: any OrderChangeNotifier
    /// `webServiceURL` of every order this server creates.
    let webServiceURL: String
    let validationOptions: ValidationOptions
    /// Where documents are validated and patched: a large one takes a core for a while.
    let cpu: CPUWorkPool
    let logger: Logger
    /// The dates documents are stamped with.
    let clock: ServerClock
    /// Told when a write gave fulfillments tracking numbers: carrier events that waited for them are pending again.
    let trackingChanged: @Sendable () -> Void
    let updateLock = KeyedLock()

    struct CreatedOrder: Sendable {
        var record: OrderRecord
        var document: JSONValue
        var warnings: [ValidationProblem]

        /// The order, its validation warnings and the four `orderDetails` strings Apple Pay's completion takes.
        func responseJSON(webServiceURL: String) -> JSONValue {
            [
                "order": document, "orderDetails": OrderService.orderDetails(record, webServiceURL: webServiceURL),
                "warnings": .array(warnings.map(\.warningJSON)),
            ]
        }
    }

    /// The four strings that add an order to Wallet (Apple Pay's completion takes them as `orderDetails`).
    static func orderDetails(_ record: OrderRecord, webServiceURL: String) -> JSONValue {
        [
            "orderTypeIdentifier": .string(record.orderTypeIdentifier),
            "orderIdentifier": .string(record.orderIdentifier),
            "webServiceURL": .string(webServiceURL),
            "authenticationToken": .string(record.authenticationToken),
        ]
    }

    /// A create request's idempotency key and the hash of the request it was sent with.
    struct IdempotentRequest: Sendable {
        var key: String
        var requestHash: String
    }

    enum CreateOutcome: Sendable {
        /// The order was stored; `responseBody` is what `responseBody(_:)` made of it.
        case created(CreatedOrder, responseBody: [UInt8])
        /// The idempotency key already answered the same request (a retry, or one running concurrently): its stored
        /// response.
        case replayed(IdempotencyRecord)
    }

    /// The response stored under an idempotency key, if the key answered a request before; the same key with a
    /// different request is refused, and so is a replay to a key limited to other order types than the saved order's.
    func savedResponse(merchant: MerchantRecord, idempotency: IdempotentRequest, grant: APIKeyGrant?) async throws -> IdempotencyRecord? {
        try await store.idempotentResponse(merchantID: merchant.id, key: idempotency.key).map {
            try Self.replayable($0, for: idempotency, grant: grant)
        }
    }

    private static func replayable(_ saved: IdempotencyRecord, for request: IdempotentRequest, grant: APIKeyGrant?) throws -> IdempotencyRecord {
        guard saved.requestHash == request.requestHash else {
            throw OrderTrackError(
                .idempotencyKeyReused, "this Idempotency-Key was already used with a different request body; use a new key for a new order")
        }
        // A saved answer names its order's type in orderDetails: the key must be allowed that type, as for a create.
        if let grant, grant.orderTypes != nil {
            guard let type = (try? JSONValue.parse(saved.body))?["orderDetails"]?["orderTypeIdentifier"]?.stringValue else {
                throw OrderStoreError.corruptRecord(table: "idempotency_keys", reason: "a saved answer without orderDetails")
            }
            try grant.requireOrderType(type)
        }
        return saved
    }

    /// Completes order content sent at payment completion, validates it with the merchant's assets, and stores it;
    /// with an idempotency key, the response (made by `responseBody`, on the CPU pool) is stored under it in the order's
    /// transaction. `accepting` judges the order exactly as it would be stored (translated, filled, normalized) and
    /// may refuse it: a payment is checked against the total the customer will see, not the body as sent.
    ///
    /// The content is walked along the schema once and normalized once, on two CPU-pool jobs with one read of the
    /// assets between them; the package builder then signs the validated order as it is.
    func createOrder(
        merchant: MerchantRecord, content: JSONValue, idempotency: IdempotentRequest?, author: OrderChangeAuthor,
        accepting: @escaping @Sendable (_ normalized: JSONValue) throws -> Void = { _ in },
        responseBody: @escaping @Sendable (CreatedOrder) -> [UInt8]
    ) async throws -> CreateOutcome {
        let now = clock.date
        let filled = try await filledForCreation(content, merchant: merchant, author: author, now: now)
        let files = try await packages.assetFiles(referencedBy: filled.checked.referencedFiles, merchantID: merchant.id)
        let prepared = try await cpu.run { () throws -> (ValidatedOrder, CreatedOrder, response: [UInt8], ChangeNote, [FulfillmentTrackingEntry]) in
            let order = try Self.valid(filled.checked, files: files)
            let normalized = order.json
            try accepting(normalized)
            guard let created = normalized["createdAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339),
                let updated = normalized["updatedAt"]?.stringValue.flatMap(DateTimeFormat.parseRFC3339),
                let orderIdentifier = normalized["orderIdentifier"]?.stringValue, let token = normalized["authenticationToken"]?.stringValue
            else { throw OrderTrackError(.incompleteOrder, "the order lacks identifiers or dates") }
            try Self.refuseFutureDates([("createdAt", created), ("updatedAt", updated)], now: now)
            let record = OrderRecord(
                orderTypeIdentifier: filled.orderType.orderTypeIdentifier, orderIdentifier: orderIdentifier, merchantID: merchant.id,
                authenticationToken: token, document: order.bytes, status: normalized["status"]?.stringValue,
                createdAt: created, updatedAt: updated, version: 1, changeSequence: 0, orderNumber: normalized["orderNumber"]?.stringValue)
            // The response shows the order as created; the change sequence the store assigns is not part of it.
            let shown = CreatedOrder(record: record, document: normalized, warnings: filled.translationWarnings + order.warnings)
            return (order, shown, responseBody(shown), author.note(from: nil, to: normalized), Self.trackingEntries(of: normalized))
        }
        let (order, shown, response, note, tracking) = prepared
        let record = shown.record
        let stored: OrderRecord
        do {
            if let idempotency {
                let claim = IdempotencyClaim(
                    merchantID: merchant.id, key: idempotency.key,
                    record: IdempotencyRecord(requestHash: idempotency.requestHash, status: 201, body: response, createdAt: now))
                switch try await store.createOrder(record, idempotency: claim, note: note, tracking: tracking) {
                case .created(let order): stored = order
                case .replayed(let existing): return .replayed(try Self.replayable(existing, for: idempotency, grant: author.grant))
                }
            } else {
                stored = try await store.createOrder(record, note: note, tracking: tracking)
            }
        } catch OrderStoreError.orderAlreadyExists {
            throw OrderTrackError(
                .orderExists, "order \(record.orderIdentifier) of type \(record.orderTypeIdentifier) already exists; PATCH it instead")
        } catch let OrderStoreError.orderNumberExists(type, number, existing) {
            throw Self.orderNumberTaken(type: type, number: number, existing: existing)
        } catch OrderStoreError.authenticationTokenTaken {
            // The same words whoever's order has it: the answer tells nothing about other merchants' orders.
            throw OrderTrackError.invalidOrder([
                ValidationProblem(path: "authenticationToken", message: "is already used by another order; leave it out to get a generated one")
            ])
        }
        records.remember(stored)
        packages.prepare(stored, order)
        if !tracking.isEmpty { trackingChanged() }
        return .created(CreatedOrder(record: stored, document: shown.document, warnings: shown.warnings), responseBody: response)
    }

    /// Each update moves updatedAt at least a second on, so a date far ahead of the clock (year 9999) would leave no
    /// later one for the next update: the order could never change again.
    private static func refuseFutureDates(_ dates: [(field: String, date: Date)], now: Date) throws {
        let latest = now.addingTimeInterval(maximumFutureDate)
        let future = dates.filter { $0.date > latest }.map { field, date in
            ValidationProblem(
                path: field,
                message:
                    "\(DateTimeFormat.formatRFC3339(date)) is more than an hour after the server's clock (\(DateTimeFormat.formatRFC3339(now))); omit \(field) to use the current time"
            )
        }
        guard future.isEmpty else { throw OrderTrackError.invalidOrder(future) }
    }

    /// The order content as a create stores it, walked along the schema: translated from the simplified vocabulary,
    /// with the merchant's order type (named or default), and what creation fills (identifier, token, dates, web
    /// service URL). `POST /orders` and `POST /orders/validate` both use it, so validation judges exactly what a
    /// create would store. The translation, the filling and the walk are one CPU-pool job.
    private func filledForCreation(_ content: JSONValue, merchant: MerchantRecord, author: OrderChangeAuthor?, now: Date) async throws
        -> (checked: SchemaCheckedOrder, orderType: OrderTypeRecord, translationWarnings: [ValidationProblem])
    {
        guard let content = OrderCreation.identified(content, orderIdentifier: { UUID().uuidString.lowercased() })?.content,
            let requested = ProviderVocabulary.orderMembers(of: content)
        else {
            throw OrderTrackError(.contentNotObject, "the body must be a JSON object with the order content, but is \(content.kindName)")
        }
        // The order type comes first: its defaults fill what the simplified form lacks.
        let orderType = try await resolveOrderType(merchant: merchant, requested: requested["orderTypeIdentifier"])
        try author?.grant?.requireOrderType(orderType.orderTypeIdentifier)
        let defaults = try await orderDefaults(merchant: merchant, orderType: orderType.orderTypeIdentifier)
        let (webServiceURL, options) = (webServiceURL, validationOptions)
        let (checked, translationWarnings) = try await cpu.run { () throws -> (SchemaCheckedOrder, [ValidationProblem]) in
            let (translated, translationWarnings) = try Self.translated(content, defaults: defaults)
            guard var document = translated.objectValue else {
                throw OrderTrackError(.contentNotObject, "the body must be a JSON object with the order content, but is \(translated.kindName)")
            }
            if let identifier = document["orderIdentifier"] {
                guard let text = identifier.stringValue, Identifiers.isValid(text) else {
                    throw OrderTrackError(.invalidOrderIdentifier, "orderIdentifier must be \(Identifiers.rule)", field: "orderIdentifier")
                }
            }
            if let given = document["webServiceURL"], given != .string(webServiceURL) {
                throw OrderTrackError(.webServiceURLFixed, "webServiceURL is set by OrderTrack to \(webServiceURL); omit it", field: "webServiceURL")
            }
            // A device proves it holds the order with this token alone, online: a merchant-chosen one must be as hard to
            // guess as a generated one.
            if let chosen = document["authenticationToken"]?.stringValue, let weakness = AuthenticationTokenStrength.weakness(of: chosen) {
                throw OrderTrackError.invalidOrder([ValidationProblem(path: "authenticationToken", message: weakness)])
            }
            // The resolved order type replaces a named one: they are equal, or resolving refused it.
            document["orderTypeIdentifier"] = .string(orderType.orderTypeIdentifier)
            document =
                OrderCreation.filled(
                    document, orderTypeIdentifier: orderType.orderTypeIdentifier, webServiceURL: webServiceURL, now: now,
                    authenticationToken: Secrets.authenticationToken
                ).document
            return (OrderValidator.check(document: .object(document), options: options), translationWarnings)
        }
        return (checked, orderType, translationWarnings)
    }

    /// An order after an update, whether the update changed it, and the warnings of its content.
    package struct UpdatedOrder: Sendable {
        package var record: OrderRecord
        /// The record's document as a tree: answers show it without parsing it again.
        package var document: JSONValue
        package var changed: Bool
        package var warnings: [ValidationProblem]
    }

    /// Applies a partial update; an update that changes nothing leaves the order (and its devices) alone.
    ///
    /// - Parameter allowedVersions: the versions the caller's change is meant for (`If-Match`); `nil` for any. When the
    ///   order is at another version, nothing is written and ``OrderTrackError/Code/versionMismatch`` names the current
    ///   version and its last change. The version is compared with the one the store then replaces, so a change
    ///   committed in between by another request or instance is never overwritten.
    package func updateOrder(
        merchant: MerchantRecord, type: String, id: String, patch: [UInt8], author: OrderChangeAuthor, allowedVersions: Set<Int>? = nil
    ) async throws -> UpdatedOrder {
        try await updateLock.withLock("\(type)\u{0}\(id)") {
            try await applyUpdate(
                merchant: merchant, type: type, id: id, patch: .body(patch), authenticationToken: nil, author: author,
                allowedVersions: allowedVersions, now: clock.date)
        }
    }

    /// The same with the patch already parsed (a bulk update's line, a carrier's change). A carrier's change names the
    /// `scan` it applies, recorded in the update's transaction
    /// (``OrderStoreError/scanSuperseded(orderTypeIdentifier:orderIdentifier:fulfillmentIdentifier:)`` when a newer
    /// one was recorded first), and passes the order as it `current`ly read it, which saves reading it again: the write
    /// is checked against that version all the same.
    package func updateOrder(
        merchant: MerchantRecord, type: String, id: String, patch: JSONValue, author: OrderChangeAuthor, allowedVersions: Set<Int>? = nil,
        current: OrderRecord? = nil, scan: FulfillmentScan? = nil, inputs: UpdateInputs? = nil
    ) async throws -> UpdatedOrder {
        try await updateLock.withLock("\(type)\u{0}\(id)") {
            try await applyUpdate(
                merchant: merchant, type: type, id: id, patch: .tree(patch), authenticationToken: nil, author: author,
                allowedVersions: allowedVersions, known: current, scan: scan, inputs: inputs, now: clock.date)
        }
    }

    /// What an update reads besides its order: the order type's defaults and the names of the merchant's assets. A
    /// caller updating many orders of one order type at once (a carrier worker's batch) reads them once for all with
    /// ``updateInputs(merchant:type:)`` instead of twice per order; a change made meanwhile applies from its next batch.
    package struct UpdateInputs: Sendable {
        fileprivate var defaults: ProviderVocabulary.Defaults
        fileprivate var assetNames: [String]
    }

    /// The inputs of updates to `merchant`'s orders of order type `type`, read now.
    package func updateInputs(merchant: MerchantRecord, type: String) async throws -> UpdateInputs {
        UpdateInputs(
            defaults: try await orderDefaults(merchant: merchant, orderType: type), assetNames: try await packages.assetNames(merchantID: merchant.id)
        )
    }

    /// The merchant's order type named `requested`, or its default (or only) one when `nil`, as a create resolves it.
    package func orderType(merchant: MerchantRecord, named requested: String?) async throws -> OrderTypeRecord {
        try await resolveOrderType(merchant: merchant, requested: requested.map(JSONValue.string))
    }

    /// Gives the order a new generated authenticationToken, as a new version, for a token that leaked: from then on
    /// the old token fetches and registers nothing (401), and the registrations made with it are deleted, as those
    /// devices could no longer fetch the order; they are not pushed. The devices of live Track in Wallet links keep
    /// theirs (each link has its own token) and are pushed the new version. The merchant hands the new token to the
    /// customer (the answer's `orderDetails`, or a new link) to add the order again.
    func rotateAuthenticationToken(merchant: MerchantRecord, type: String, id: String, author: OrderChangeAuthor) async throws
        -> UpdatedOrder
    {
        try await updateLock.withLock("\(type)\u{0}\(id)") {
            try await applyUpdate(
                merchant: merchant, type: type, id: id, patch: .tree([:]), authenticationToken: Secrets.authenticationToken(), author: author,
                allowedVersions: nil, now: clock.date)
        }
    }

    /// A merge patch as the request sent it (parsed with the order, on the same CPU-pool job) or already a tree.
    private enum PatchInput: Sendable {
        case body([UInt8])
        case tree(JSONValue)

        func parsed() throws -> JSONValue {
            switch self {
            case .tree(let patch): return patch
            case .body(let bytes):
                do throws(JSONParseError) {
                    return try JSONValue.parse(bytes)
                } catch {
                    throw OrderTrackError.invalidJSON(error)
                }
            }
        }
    }

    /// The order's current document with the patch merged in and translated, walked along the schema: the first of an
    /// update's two CPU-pool jobs. `nil` when the patch changes nothing.
    private struct MergedUpdate: Sendable {
        var existing: JSONValue
        var checked: SchemaCheckedOrder?
        var translationWarnings: [ValidationProblem]
    }

    /// `patch` applied to the order's current document; with `authenticationToken`, the order's token replaced too (a
    /// rotation, which no patch may do). One update parses the patch and the stored document, walks the result along
    /// the schema and normalizes it once each, on two CPU-pool jobs with one read of the assets between them.
    private func applyUpdate(
        merchant: MerchantRecord, type: String, id: String, patch input: PatchInput, authenticationToken: String?, author: OrderChangeAuthor,
        allowedVersions: Set<Int>?, known: OrderRecord? = nil, scan: FulfillmentScan? = nil, inputs: UpdateInputs? = nil, now: Date
    ) async throws -> UpdatedOrder {
        let defaults: ProviderVocabulary.Defaults
        if let inputs { defaults = inputs.defaults } else { defaults = try await orderDefaults(merchant: merchant, orderType: type) }
        let options = validationOptions
        var known = known.flatMap { $0.merchantID == merchant.id && $0.key == OrderKey(orderTypeIdentifier: type, orderIdentifier: id) ? $0 : nil }
        for _ in 0..<8 {
            let current: OrderRecord
            if let record = known {
                current = record
                known = nil
            } else {
                current = try await order(merchant: merchant, type: type, id: id)
            }
            if let allowedVersions, !allowedVersions.contains(current.version) {
                throw try await versionMismatch(current, allowed: allowedVersions)
            }
            let updatedAt = Self.nextUpdatedAt(previous: current.updatedAt, now: now)
            let merged = try await cpu.run { () throws -> MergedUpdate in
                let patch = try input.parsed()
                let existing = try JSONValue.parse(current.document)
                let merged: JSONValue
                do throws(OrderPatchError) {
                    merged = try OrderPatch.apply(patch, to: existing)
                } catch {
                    throw OrderTrackError(.invalidPatch, error.description, field: error.path)
                }
                if defaults.fulfillmentType == nil, let (index, identifier) = Self.newFulfillmentWithoutType(patch: patch, existing: existing) {
                    let known = existing["fulfillments"]?.arrayValue?.compactMap { $0["fulfillmentIdentifier"]?.stringValue } ?? []
                    throw OrderTrackError(
                        .invalidPatch,
                        "no fulfillment \(identifier); existing: \(known.isEmpty ? "none" : known.joined(separator: ", ")); "
                            + "to add one, give fulfillmentType (shipping or pickup)",
                        field: "fulfillments[\(index)].fulfillmentIdentifier")
                }
                // The merged order, not the patch, is translated: a simplified status such as "in_progress" rewrites
                // fulfillments the patch may not name.
                var (patched, translationWarnings) = try Self.translated(merged, defaults: defaults)
                if let authenticationToken { patched["authenticationToken"] = .string(authenticationToken) }
                guard !Self.changedFields(from: existing, to: patched).isEmpty else {
                    return MergedUpdate(existing: existing, checked: nil, translationWarnings: translationWarnings)
                }
                patched["updatedAt"] = .string(DateTimeFormat.formatRFC3339(updatedAt))
                if author.grant?.changesOnlyFulfillments == true,
                    let violation = FulfillmentPatchRule.violation(JSONDiff(from: existing, to: patched), before: existing)
                {
                    throw violation
                }
                if author.completesDeliveredOrders, CarrierUpdateRules.shouldCompleteOrder(patched) { patched["status"] = "completed" }
                return MergedUpdate(
                    existing: existing, checked: OrderValidator.check(document: patched, options: options), translationWarnings: translationWarnings)
            }
            guard let checked = merged.checked else {
                return UpdatedOrder(record: current, document: merged.existing, changed: false, warnings: merged.translationWarnings)
            }
            let files = try await packages.assetFiles(referencedBy: checked.referencedFiles, merchantID: merchant.id, names: inputs?.assetNames)
            let (order, note, tracking) = try await cpu.run { () throws -> (ValidatedOrder, ChangeNote, [FulfillmentTrackingEntry]?) in
                let order = try Self.valid(checked, files: files)
                let tracking = Self.trackingEntries(of: order.json)
                // Unchanged tracking numbers cost the write no statement.
                return (
                    order, author.note(from: merged.existing, to: order.json),
                    tracking == Self.trackingEntries(of: merged.existing) ? nil : tracking
                )
            }
            do {
                let number = order.json["orderNumber"]?.stringValue
                let stored = try await records.writing(type: type, id: id) {
                    try await store.updateOrder(
                        type: type, id: id, expectedVersion: current.version, document: order.bytes, status: order.json["status"]?.stringValue,
                        orderNumber: number, renumberedFor: number == current.orderNumber ? nil : merchant.id, updatedAt: updatedAt, note: note,
                        authenticationToken: authenticationToken, tracking: tracking, scan: scan)
                }
                packages.prepare(stored, order)
                await notifier.orderChanged()
                if tracking?.isEmpty == false { trackingChanged() }
                return UpdatedOrder(record: stored, document: order.json, changed: true, warnings: merged.translationWarnings + order.warnings)
            } catch OrderStoreError.versionConflict {
                continue
            } catch let OrderStoreError.orderNumberExists(type, number, existing) {
                throw Self.orderNumberTaken(type: type, number: number, existing: existing)
            }
        }
        throw OrderTrackError(.updateContention, "the order is being changed by many requests at once; retry")
    }

    /// The shipping fulfillments of an order that have a tracking number, as carrier events find them: the number
    /// compared as carriers and merchants print it differently (``CarrierMatching/normalizedTrackingNumber(_:)``).
    static func trackingEntries(of order: JSONValue) -> [FulfillmentTrackingEntry] {
        var seen = Set<String>()
        return (order["fulfillments"]?.arrayValue ?? []).compactMap { fulfillment in
            guard fulfillment["fulfillmentType"]?.stringValue == "shipping", let identifier = fulfillment["fulfillmentIdentifier"]?.stringValue,
                let number = fulfillment["trackingNumber"]?.stringValue.map(CarrierMatching.normalizedTrackingNumber), !number.isEmpty,
                seen.insert(identifier).inserted
            else { return nil }
            return FulfillmentTrackingEntry(fulfillmentIdentifier: identifier, trackingNumber: number, carrier: fulfillment["carrier"]?.stringValue)
        }
    }

    /// The first fulfillment of a patch that names an identifier the order lacks without saying its type: most often a
    /// mistyped identifier, which would otherwise be added as a new fulfillment and fail validation obscurely.
    static func newFulfillmentWithoutType(patch: JSONValue, existing: JSONValue) -> (index: Int, identifier: String)? {
        guard let changes = patch["fulfillments"]?.arrayValue else { return nil }
        let known = Set(existing["fulfillments"]?.arrayValue?.compactMap { $0["fulfillmentIdentifier"]?.stringValue } ?? [])
        for (index, change) in changes.enumerated() {
            if let identifier = change["fulfillmentIdentifier"]?.stringValue, !known.contains(identifier), change["fulfillmentType"] == nil {
                return (index, identifier)
            }
        }
        return nil
    }

    /// 409: order numbers identify orders within an order type, as a shop's do.
    static func orderNumberTaken(type: String, number: String, existing: String) -> OrderTrackError {
        OrderTrackError(
            .orderNumberExists,
            "order number \(number) already belongs to order \(existing) of type \(type); order numbers are unique within an order type: "
                + "PATCH /api/v1/orders/\(type)/\(existing) to change that order, or give this one its own number",
            field: "orderNumber", details: ["existingOrderIdentifier": .string(existing), "orderTypeIdentifier": .string(type)])
    }

    /// 412: the order moved on from the version the caller read; names the current version and who changed it last.
    private func versionMismatch(_ current: OrderRecord, allowed: Set<Int>) async throws -> OrderTrackError {
        let last = try await store.orderHistory(orderTypeIdentifier: current.orderTypeIdentifier, orderIdentifier: current.orderIdentifier, limit: 1)
            .first
        let by = last.flatMap { $0.keyName ?? $0.author } ?? "an earlier version of OrderTrack"
        let at = DateTimeFormat.formatRFC3339(last?.at ?? current.updatedAt)
        let expected =
            allowed.isEmpty ? "none of the versions If-Match names" : "not " + allowed.sorted().map { "\"\($0)\"" }.joined(separator: " or ")
        return OrderTrackError(
            .versionMismatch,
            "the order is at version \(current.version), last changed by \"\(by)\" at \(at), \(expected); nothing was changed. "
                + "Read the order again (its ETag is \"\(current.version)\") and apply your change to that version",
            field: "If-Match",
            details: [
                "currentVersion": .integer(current.version),
                "lastChange": ["version": .integer(last?.version ?? current.version), "by": .string(by), "at": .string(at)],
            ])
    }

    /// The top-level keys whose values differ between two versions of a document, sorted: what the transcript says a
    /// change touched.
    static func changedFields(from before: JSONValue, to after: JSONValue) -> [String] {
        let old = before.objectValue ?? [:]
        let new = after.objectValue ?? [:]
        return Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()
    }

    /// `updatedAt` of a new version: after the previous one even if the clock stepped back, and in a later whole
    /// second, because devices revalidate with second-granular HTTP-dates: two versions within one second would
    /// look alike to `If-Modified-Since` and the second would never reach the device.
    /// How far ahead of the server's clock a merchant may date an order it creates (clock skew, time zones done wrong).
    static let maximumFutureDate: TimeInterval = 3600

    static func nextUpdatedAt(previous: Date, now: Date) -> Date {
        let candidate = max(now, previous.addingTimeInterval(0.001))
        let previousSecond = previous.timeIntervalSince1970.rounded(.down)
        return candidate.timeIntervalSince1970.rounded(.down) > previousSecond ? candidate : Date(timeIntervalSince1970: previousSecond + 1)
    }

    /// An order of this merchant; 404 for unknown orders and for other merchants' orders alike.
    package func order(merchant: MerchantRecord, type: String, id: String) async throws -> OrderRecord {
        guard let record = try await store.order(type: type, id: id), record.merchantID == merchant.id else {
            throw OrderTrackError(.notFound, "no order \(id) of type \(type)")
        }
        return record
    }

    /// The latest `limit` changes of one of the merchant's orders, newest first (404 as ``order(merchant:type:id:)``).
    func history(merchant: MerchantRecord, type: String, id: String, limit: Int) async throws -> [OrderActivity] {
        _ = try await order(merchant: merchant, type: type, id: id)
        return try await store.orderHistory(orderTypeIdentifier: type, orderIdentifier: id, limit: limit)
    }

    /// A page of the merchant's orders, optionally filtered; `cursor` is the previous page's `nextCursor`.
    func listOrders(
        merchant: MerchantRecord, orderTypeIdentifier: String?, orderNumber: String? = nil, status: String?, updatedSince: Date?, cursor: String?,
        limit: Int
    ) async throws -> OrderPage {
        do {
            return try await store.listOrders(
                merchantID: merchant.id, orderTypeIdentifier: orderTypeIdentifier, orderNumber: orderNumber, status: status,
                updatedSince: updatedSince, after: cursor, limit: limit)
        } catch OrderStoreError.invalidCursor {
            throw OrderTrackError(.invalidCursor, "cursor must be a nextCursor value returned by this endpoint", field: "cursor")
        }
    }

    /// Validates a complete order.json as `ordertrack validate` does, with the merchant's assets standing in for the
    /// package's files and this server's options, as `POST /orders` validates before storing. A document that is not
    /// JSON is a problem at the root, not an error: the problems are the answer.
    package func validate(merchant: MerchantRecord, orderJSON: [UInt8]) async throws -> ValidationReport {
        let parsed = try await cpu.run { () -> Result<JSONValue, JSONParseError> in
            do throws(JSONParseError) {
                return .success(try JSONValue.parse(orderJSON))
            } catch {
                return .failure(error)
            }
        }
        switch parsed {
        case .success(let document): return try await report(for: document, merchant: merchant)
        case .failure(let error): return ValidationReport(problems: [ValidationProblem(path: "", message: "order.json is not valid JSON: \(error)")])
        }
    }

    /// Validates what ``updateOrder(merchant:type:id:patch:author:allowedVersions:)`` would store: `patch` applied to the order's current
    /// document, through the same validator as ``validate(merchant:orderJSON:)``. A patch that cannot apply (one that
    /// changes `orderIdentifier`, say) is a problem at its path, as the update would refuse it.
    package func validatePatch(merchant: MerchantRecord, type: String, id: String, patch: JSONValue) async throws -> ValidationReport {
        let current = try await order(merchant: merchant, type: type, id: id)
        let patched = try await cpu.run { () -> Result<JSONValue, OrderPatchError> in
            let existing = try JSONValue.parse(current.document)
            do throws(OrderPatchError) {
                return .success(try OrderPatch.apply(patch, to: existing))
            } catch {
                return .failure(error)
            }
        }
        switch patched {
        case .success(let document): return try await report(for: document, merchant: merchant)
        case .failure(let error): return ValidationReport(problems: [ValidationProblem(path: error.path, message: error.message)])
        }
    }

    /// The problems of the order a create would store from `parsed`: filled as creation fills it, in either vocabulary
    /// (each translation a warning), with the merchant's assets standing in for the package's files.
    private func report(for parsed: JSONValue, merchant: MerchantRecord) async throws -> ValidationReport {
        let filled: (checked: SchemaCheckedOrder, orderType: OrderTypeRecord, translationWarnings: [ValidationProblem])
        do {
            filled = try await filledForCreation(parsed, merchant: merchant, author: nil, now: clock.date)
        } catch let error as OrderTrackError {
            // What a create would refuse before validating (an order type, an identifier): one problem at its field.
            return ValidationReport(
                problems: error.problems.isEmpty ? [ValidationProblem(path: error.field ?? "", message: error.reason)] : error.problems)
        }
        let files = try await packages.assetFiles(referencedBy: filled.checked.referencedFiles, merchantID: merchant.id)
        let problems = try await cpu.run { () -> [ValidationProblem] in
            do throws(OrderDecodingError) {
                return try filled.checked.validated(package: PackageContents(files: files)).warnings
            } catch {
                return error.report.problems
            }
        }
        return ValidationReport(problems: filled.translationWarnings + problems)
    }

    /// The order a walk checked, validated with its files: 422 with every problem when it or its package is invalid.
    private static func valid(_ checked: SchemaCheckedOrder, files: [String: [UInt8]]) throws -> ValidatedOrder {
        do throws(OrderDecodingError) {
            return try checked.validated(package: PackageContents(files: files))
        } catch {
            throw OrderTrackError.invalidOrder(error.report.problems)
        }
    }

    /// What fills an order of this type where the simplified form (or an Apple-form document) lacks it: the order
    /// type's defaults, with the merchant-wide ones where the type sets none.
    private func orderDefaults(merchant: MerchantRecord, orderType: String) async throws -> ProviderVocabulary.Defaults {
        try await Administration(store: store, now: { clock.date }).orderDefaults(merchantID: merchant.id, orderTypeIdentifier: orderType).effective
    }

    /// The document in Apple's vocabulary and a warning per rewrite; a field the simplified form lacks and no default
    /// fills is a 422 naming it.
    private static func translated(_ document: JSONValue, defaults: ProviderVocabulary.Defaults) throws -> (JSONValue, warnings: [ValidationProblem])
    {
        let translation = ProviderVocabulary.translate(document, defaults: defaults)
        guard translation.errors.isEmpty else { throw OrderTrackError.invalidOrder(translation.errors + translation.warnings) }
        return (translation.document, translation.warnings)
    }

    /// A page of the merchant's orders newest first, for people browsing them: optionally one status, or the orders
    /// whose order number or identifier is `search`; `cursor` is the previous page's `nextCursor`.
    package func recentOrders(
        merchant: MerchantRecord, orderTypeIdentifier: String? = nil, status: String?, search: String?, cursor: String?, limit: Int
    ) async throws -> OrderPage {
        do {
            return try await store.recentOrders(
                merchantID: merchant.id, orderTypeIdentifier: orderTypeIdentifier, status: status, search: search, before: cursor, limit: limit)
        } catch OrderStoreError.invalidCursor {
            throw OrderTrackError(.invalidCursor, "cursor must be a nextCursor value returned by this page", field: "cursor")
        }
    }

    /// A mark that changes whenever what the merchant's pages show may have changed: with `order`, that order's
    /// version, activity and push attempts; without, any change of any of the merchant's orders, and any push attempt
    /// for the `listed` orders (the rows of the list page that asks). Pages compare it over time to know when to refresh.
    package func revision(merchant: MerchantRecord, order key: OrderKey?, listed: [OrderKey] = []) async throws -> Revision {
        guard let key else {
            return Revision(mark: try await listRevision(merchant: merchant, changes: try await latestChange(merchant: merchant), listed: listed))
        }
        let record = try await order(merchant: merchant, type: key.orderTypeIdentifier, id: key.orderIdentifier)
        let pushes = try await store.latestPushLogID(orderTypeIdentifier: key.orderTypeIdentifier, orderIdentifier: key.orderIdentifier)
        let activity = try await store.latestActivityID(orderTypeIdentifier: key.orderTypeIdentifier, orderIdentifier: key.orderIdentifier)
        return Revision(mark: "\(record.changeSequence).\(pushes).\(activity)", version: record.version)
    }

    /// A page's revision mark and, for an order page, the order's version read with it (a push attempt moves the mark,
    /// not the version: the page tells a content change by the version).
    package struct Revision: Sendable, Equatable {
        package var mark: String
        package var version: Int? = nil
    }

    /// The change sequence of the merchant's latest order change: the list page reads it before its rows.
    package func latestChange(merchant: MerchantRecord) async throws -> Int64 {
        try await store.latestChangeSequence(merchantID: merchant.id)
    }

    /// The list's revision from a change sequence read earlier and the latest push attempt for the `listed` rows.
    package func listRevision(merchant: MerchantRecord, changes: Int64, listed: [OrderKey]) async throws -> String {
        "\(changes).\(try await store.latestPushLogID(merchantID: merchant.id, of: listed))"
    }

    /// How many devices are registered for each of these orders of the merchant (other merchants' orders count 0).
    package func registeredDeviceCounts(merchant: MerchantRecord, orders: [OrderRecord]) async throws -> [OrderKey: Int] {
        let owned = orders.filter { $0.merchantID == merchant.id }
        return try await store.registrationCounts(
            of: owned.map { OrderKey(orderTypeIdentifier: $0.orderTypeIdentifier, orderIdentifier: $0.orderIdentifier) })
    }

    /// The latest activity (changes, registrations, fetches) of an order of this merchant, newest first.
    package func activity(merchant: MerchantRecord, type: String, id: String, limit: Int) async throws -> [OrderActivity] {
        let record = try await order(merchant: merchant, type: type, id: id)
        return try await store.orderActivity(
            orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier, limit: limit)
    }

    /// The latest push attempts for an order of this merchant, newest first.
    package func pushLog(merchant: MerchantRecord, type: String, id: String, limit: Int) async throws -> [PushLogEntry] {
        let record = try await order(merchant: merchant, type: type, id: id)
        return try await store.pushLog(orderTypeIdentifier: record.orderTypeIdentifier, orderIdentifier: record.orderIdentifier, limit: limit)
    }

    /// Pushes the current version to every registered device again, without changing the order.
    package func notifyDevices(merchant: MerchantRecord, type: String, id: String) async throws -> Int {
        let record = try await order(merchant: merchant, type: type, id: id)
        return try await notifier.renotify(record)
    }

    /// The signed package of an order's current version.
    package func package(merchant: MerchantRecord, type: String, id: String) async throws -> (OrderRecord, [UInt8]) {
        let record = try await order(merchant: merchant, type: type, id: id)
        return (record, try await packages.package(for: record))
    }

    private func resolveOrderType(merchant: MerchantRecord, requested: JSONValue?) async throws -> OrderTypeRecord {
        if let requested {
            guard let identifier = requested.stringValue else {
                throw OrderTrackError(.invalidOrderType, "orderTypeIdentifier must be a string", field: "orderTypeIdentifier")
            }
            guard let record = try await store.orderType(identifier), record.merchantID == merchant.id else {
                throw OrderTrackError(
                    .orderTypeNotOwned, "order type \(identifier) is not configured for this merchant", field: "orderTypeIdentifier")
            }
            return record
        }
        let owned = try await store.orderTypes(merchantID: merchant.id)
        if let chosen = try await store.defaultOrderType(merchantID: merchant.id),
            let record = owned.first(where: { $0.orderTypeIdentifier == chosen })
        {
            return record
        }
        guard owned.count == 1 else {
            let message =
                owned.isEmpty
                ? "this merchant has no order type yet; configure one with PUT /api/v1/order-types/{orderTypeIdentifier}"
                : "orderTypeIdentifier is required: this merchant has several order types (\(owned.map(\.orderTypeIdentifier).sorted().joined(separator: ", "))) "
                    + "and no default; name one, or choose the default with PUT /api/v1/order-types/{orderTypeIdentifier}/default"
            throw OrderTrackError(.orderTypeRequired, message, field: "orderTypeIdentifier")
        }
        return owned[0]
    }
}

extension ValidationProblem {
    /// A warning as the API's answers list it: its path and its message.
    package var warningJSON: JSONValue {
        ["path": .string(path), "message": .string(message)]
    }
}
