import Hummingbird
import NIOCore
import OrderPersistence
import OrderTrackServer
import ServiceLifecycle

/// `GET /dashboard/events[?order=TYPE/ID | ?listed=TYPE/ID&listed=…][&since=REVISION]`: server-sent events that tell an open page when
/// what it shows changed (the merchant's orders, and push attempts for the rows shown, for the list; that order's
/// version, activity and push attempts for an order page).
///
/// Each stream asks the store for the page's revision every couple of seconds rather than listening to this
/// process's own changes, so a change made through another instance on the same database reaches it too. It sends one
/// `changed` event and ends (the page reloads); it also ends after `lifetime` (the browser's EventSource reconnects)
/// and within a poll interval of the server starting to shut down, so it never holds a shutdown up for long.
struct DashboardEvents: Sendable {
    var pollInterval: Duration = .seconds(2)
    var heartbeatInterval: Duration = .seconds(15)
    var lifetime: Duration = .seconds(300)

    let orders: OrderService
    /// Polls, heartbeats and the stream's lifetime.
    let clock: ServerClock

    func response(_ request: Request, _ context: MerchantRequestContext) async throws -> Response {
        let merchant = context.merchant
        let key = try request.uri.queryParameters["order"].map { try Self.orderKey(String($0)) }
        let listed = try request.uri.queryParameters.getAll("listed").prefix(DashboardRoutes.pageSize).map(Self.orderKey)
        // The revision the page was rendered at, so that a change between its render and this request still counts;
        // without one, the revision now.
        let start: String
        if let since = request.uri.queryParameters["since"] {
            start = String(since)
        } else {
            start = try await orders.revision(merchant: merchant, order: key, listed: listed).mark
        }
        let body = ResponseBody { [self] writer in
            try await writer.write(ByteBuffer(string: "retry: 5000\n\n"))
            if let changed = try await waitForChange(from: start, merchant: merchant, order: key, listed: listed, writer: &writer) {
                // An order page learns the version: a push attempt or a re-notify moves the revision, not the content.
                let data = changed.version.map { #"{"version":\#($0)}"# } ?? "{}"
                try await writer.write(ByteBuffer(string: "event: changed\ndata: \(data)\n\n"))
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }

    /// Polls until the revision moves (answering the new one), or the lifetime runs out or the server shuts down
    /// (`nil`); writes a comment now and then, so that proxies do not close a quiet stream.
    func waitForChange(
        from start: String, merchant: MerchantRecord, order key: OrderKey?, listed: [OrderKey], writer: inout any ResponseBodyWriter
    ) async throws -> OrderService.Revision? {
        let deadline = clock.now.advanced(by: lifetime)
        var heartbeat = clock.now.advanced(by: heartbeatInterval)
        while clock.now < deadline {
            do {
                try await clock.sleep(for: pollInterval)
            } catch {
                return nil
            }
            guard !Task.isShuttingDownGracefully else { return nil }
            let now = try await orders.revision(merchant: merchant, order: key, listed: listed)
            guard now.mark == start else { return now }
            if clock.now >= heartbeat {
                try await writer.write(ByteBuffer(string: ": still watching\n\n"))
                heartbeat = clock.now.advanced(by: heartbeatInterval)
            }
        }
        return nil
    }

    /// `TYPE/ID` of the order page that listens, or of a row of the list that does.
    static func orderKey(_ text: String) throws -> OrderKey {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else {
            throw APIError.badRequest("order_invalid", "each order must be orderTypeIdentifier/orderIdentifier", param: "order")
        }
        return OrderKey(orderTypeIdentifier: parts[0], orderIdentifier: parts[1])
    }
}
