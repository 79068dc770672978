import Hummingbird
import Logging

/// Writes one log line per device call: method, path, route, status, order id and latency, never a token. Status is
/// the one the error envelope will answer when the call fails.
struct DeviceCallLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let clock: ServerClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.logger.logLevel <= .info else { return try await next(request, context) }
        let start = clock.now
        var status = 500
        defer {
            var metadata: Logger.Metadata = [
                "method": .string(request.method.rawValue), "path": .string(request.uri.path), "status": .stringConvertible(status),
                "latency_ms": .string(start.duration(to: clock.now).millisecondsText),
            ]
            if let route = context.endpointPath { metadata["route"] = .string(route) }
            if let order = context.parameters.get("orderIdentifier") { metadata["order"] = .string(order) }
            context.logger.info("wallet call", metadata: metadata)
        }
        do {
            let response = try await next(request, context)
            status = Int(response.status.code)
            return response
        } catch {
            status = Int(APIError(answering: error).status.code)
            throw error
        }
    }
}

extension Duration {
    /// In milliseconds with two decimals ("3.07"), by integer arithmetic: Foundation's `String(format:)` was a fifth
    /// of the device-call log line's time.
    var millisecondsText: String {
        let hundredths = max(0, Int((self / .microseconds(10)).rounded()))
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
