import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// The merchant API in a few calls: the generated ``Client`` signed with an API key, whose error answers throw
/// ``OrderTrackError``. Every operation of the document stays at hand through ``client``.
///
/// ```swift
/// let orderTrack = OrderTrack(serverURL: URL(string: "https://orders.example.com")!, apiKey: "sk_…")
/// let created = try await orderTrack.createOrder(content, idempotencyKey: paymentID)
/// ```
public struct OrderTrack: Sendable {
    /// The generated client, for the operations this type has no shortcut for; its error answers throw
    /// `ClientError` whose `underlyingError` is an ``OrderTrackError``.
    public let client: Client

    /// - Parameters:
    ///   - serverURL: the server's public URL, e.g. `https://orders.example.com`.
    ///   - apiKey: a secret key (`sk_…`) or a restricted key (`rk_…`) holding the scopes of the calls made.
    ///   - transport: AsyncHTTPClient's shared client unless another transport is given.
    public init(serverURL: URL, apiKey: String, transport: any ClientTransport = AsyncHTTPClientTransport()) {
        client = Client(
            serverURL: serverURL, configuration: Configuration(dateTranscoder: RFC3339DateTranscoder()), transport: transport,
            middlewares: [APIKeyMiddleware(key: apiKey), IfMatchMiddleware(), ErrorEnvelopeMiddleware()])
    }

    /// Creates an order from its content; hand the answer's `orderDetails` to Apple Pay.
    /// - Parameters:
    ///   - content: the order as `POST /api/v1/orders` takes it.
    ///   - idempotencyKey: retries with the same key and content replay the first answer (e.g. the payment's
    ///     identifier), so a retried checkout never makes two orders.
    public func createOrder(_ content: Components.Schemas.OrderContent, idempotencyKey: String? = nil) async throws -> Versioned<
        Components.Schemas.CreatedOrder
    > {
        let output = try await call { try await $0.createOrder(headers: .init(idempotencyKey: idempotencyKey), body: .json(content)) }
        guard case .created(let created) = output else { throw OrderTrackError(unexpected: output) }
        return Versioned(value: try created.body.json, etag: created.headers.eTag)
    }

    /// The order and its ETag, to send back in ``updateOrder(type:id:patch:ifMatch:)``.
    public func order(type: String, id: String) async throws -> Versioned<Components.Schemas.Order> {
        let output = try await call { try await $0.getOrder(path: .init(orderTypeIdentifier: type, orderIdentifier: id)) }
        guard case .ok(let ok) = output else { throw OrderTrackError(unexpected: output) }
        return Versioned(value: try ok.body.json.order, etag: ok.headers.eTag)
    }

    /// Changes the order (a JSON merge patch) and pushes the change to its devices.
    /// - Parameters:
    ///   - type: the order's `orderTypeIdentifier`.
    ///   - id: the order's `orderIdentifier`.
    ///   - patch: the JSON merge patch; `fulfillments` and `returns` merge by their identifiers.
    ///   - etag: the ETag of the order as read: a change since then throws ``OrderTrackError`` 412
    ///     order_version_mismatch and nothing is written. Without it the patch applies to any version.
    public func updateOrder(type: String, id: String, patch: Components.Schemas.OrderPatch, ifMatch etag: String? = nil) async throws
        -> Components.Schemas.UpdateOrderResponse
    {
        let output = try await call {
            try await $0.updateOrder(
                path: .init(orderTypeIdentifier: type, orderIdentifier: id), headers: .init(ifMatch: etag), body: .json(patch))
        }
        guard case .ok(let ok) = output else { throw OrderTrackError(unexpected: output) }
        return try ok.body.json
    }

    /// Pushes the order's current version to its registered devices again; returns how many were queued.
    public func notify(type: String, id: String) async throws -> Int {
        let output = try await call { try await $0.notifyOrderDevices(path: .init(orderTypeIdentifier: type, orderIdentifier: id)) }
        guard case .accepted(let accepted) = output else { throw OrderTrackError(unexpected: output) }
        return try accepted.body.json.registrations
    }

    /// A Track in Wallet link to the order: a URL that adds it to Wallet in Safari.
    /// - Parameters:
    ///   - type: the order's `orderTypeIdentifier`.
    ///   - id: the order's `orderIdentifier`.
    ///   - expiresIn: the link's lifetime in seconds (the server's default, 7 days, if nil).
    public func walletLink(type: String, id: String, expiresIn: Int? = nil) async throws -> Components.Schemas.CreateWalletLinkResponse {
        let output = try await call {
            try await $0.createWalletLink(
                path: .init(orderTypeIdentifier: type, orderIdentifier: id), body: .json(.init(expiresIn: expiresIn)))
        }
        guard case .created(let created) = output else { throw OrderTrackError(unexpected: output) }
        return try created.body.json
    }

    /// Every order matching the filter, in the order they were created, fetched a page at a time as the sequence is read.
    public func orders(status: Operations.ListOrders.Input.Query.StatusPayload? = nil, pageSize: Int = 20) -> OrderPages {
        OrderPages(orderTrack: self, status: status, pageSize: pageSize)
    }

    /// Runs any operation of the generated client, throwing the ``OrderTrackError`` of an error answer in place of the
    /// `ClientError` that wraps it: `try await orderTrack.call { try await $0.listAssets() }`.
    public func call<Output>(_ operation: (Client) async throws -> Output) async throws -> Output {
        do {
            return try await operation(client)
        } catch let error as ClientError {
            throw (error.underlyingError as? OrderTrackError) ?? error
        }
    }
}

/// An answer with the order's version: `etag` is the ETag (`"3"`), for `If-Match`.
public struct Versioned<Value: Sendable>: Sendable {
    /// The answer's body.
    public var value: Value
    /// The order's version in quotes, as the ETag header carried it.
    public var etag: String?
}

/// The orders of ``OrderTrack/orders(status:pageSize:)``: each page's `nextCursor` fetches the next, until the last.
public struct OrderPages: AsyncSequence, Sendable {
    /// The orders.
    public typealias Element = Components.Schemas.Order

    let orderTrack: OrderTrack
    let status: Operations.ListOrders.Input.Query.StatusPayload?
    let pageSize: Int

    /// Reads the pages one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let pages: OrderPages
        var buffered: [Element] = []
        /// `nil` before the first page; then the next page's cursor, nil after the last one.
        var cursor: String?? = .none

        /// The next order, fetching the next page when this one is used up.
        public mutating func next() async throws -> Element? {
            while buffered.isEmpty {
                if case .some(.none) = cursor { return nil }
                let query = Operations.ListOrders.Input.Query(limit: pages.pageSize, cursor: cursor ?? nil, status: pages.status)
                let output = try await pages.orderTrack.call { try await $0.listOrders(query: query) }
                guard case .ok(let ok) = output else { throw OrderTrackError(unexpected: output) }
                let page = try ok.body.json
                buffered = page.data.reversed()
                cursor = .some(page.nextCursor)
            }
            return buffered.popLast()
        }
    }

    /// Starts before the first page.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pages: self) }
}
