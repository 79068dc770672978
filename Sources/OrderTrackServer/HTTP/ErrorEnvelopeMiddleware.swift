import ApplePay
import HTTPTypes
import Hummingbird
import Logging
import NIOHTTP1
import OrderPersistence

extension HTTPField.Name {
    /// `X-Request-Id`: the id of a request in OrderTrack's answers and log lines.
    public static let requestID = HTTPField.Name("X-Request-Id")!
}

/// The outermost middleware: every request gets an id (the caller's `X-Request-Id` when it is a sane token, a unique
/// one otherwise), echoed in the response and attached to every log line of the request; every error a route throws
/// is answered as the JSON envelope with its status; server faults are logged at error with that id.
struct ErrorEnvelopeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Hummingbird's id (a random part per process and a counter, unique without a system call) is already on
        // every log line of the request as `hb.request.id`; a caller's own id takes its place. One id per line, and
        // the logger's metadata set once per request at most: the stream log handler formats all of it at every set.
        var context = context
        let requestID: String
        if let supplied = request.headers[.requestID].flatMap(Self.acceptedRequestID) {
            requestID = supplied
            context.logger[metadataKey: Self.logKey] = .string(supplied)
        } else if let assigned = context.logger[metadataKey: Self.logKey] {
            requestID = assigned.description
        } else {
            requestID = RequestID().description
            context.logger[metadataKey: Self.logKey] = .string(requestID)
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let answer = APIError(answering: error)
            if answer.status.kind == .serverError {
                context.logger.error(
                    "request failed",
                    metadata: [
                        "method": .string(request.method.rawValue), "path": .string(request.uri.path),
                        "status": .stringConvertible(answer.status.code), "error": .string(String(describing: error)),
                    ])
            }
            response = try answer.response(from: request, context: context)
        }
        response.headers[.requestID] = requestID
        return response
    }

    /// The log metadata key of the request id: Hummingbird's own.
    static var logKey: String { "hb.request.id" }

    /// A caller's request id is kept when it is 1–128 characters of `A–Z a–z 0–9 ._:-`, so it cannot forge log lines.
    static func acceptedRequestID(_ value: String) -> String? {
        let allowed = value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
        return allowed && (1...128).contains(value.utf8.count) ? value : nil
    }
}

extension APIError {
    /// Seconds a client should wait before retrying while the database is unreachable.
    static let retryAfterSeconds = 5
    /// Seconds a client should wait before retrying while the database is busy with other writers.
    static let busyRetryAfterSeconds = 1

    /// The answer for any error a route throws: API errors as they are, domain errors by their code, Hummingbird's own errors (404 for an unknown
    /// path, 413 for an oversized body) in the envelope, database outages and lock waits as 503 with `Retry-After`, a
    /// full disk as 507, anything else as a 500 that reveals nothing of the fault.
    package init(answering error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as OrderTrackError:
            self = APIError(error)
        case let error as ApplePayError:
            self = APIError(error)
        case let error as any HTTPResponseError:
            self = APIError.framework(error)
        case OrderStoreError.unavailable(let operation, _):
            self = APIError(
                status: .serviceUnavailable, kind: .unavailable, code: "database_unavailable",
                message: "the database is unreachable (while trying to \(operation)); retry in \(Self.retryAfterSeconds) seconds")
            extraHeaders[.retryAfter] = String(Self.retryAfterSeconds)
        case OrderStoreError.busy(let operation, _):
            self = APIError(
                status: .serviceUnavailable, kind: .unavailable, code: "database_busy",
                message: "the database is busy with other writes (while trying to \(operation)); retry in \(Self.busyRetryAfterSeconds) second")
            extraHeaders[.retryAfter] = String(Self.busyRetryAfterSeconds)
        case is CPUWorkPool.ShutDown:
            self = APIError(
                status: .serviceUnavailable, kind: .unavailable, code: "shutting_down",
                message: "the server is shutting down; retry in \(Self.busyRetryAfterSeconds) second")
            extraHeaders[.retryAfter] = String(Self.busyRetryAfterSeconds)
        case let error as HTTPParserError:
            // The client's bytes, not the server: most often a connection closed before the body ended, which nobody
            // will read the answer to. A 400, so that it is not logged as the server's fault.
            self = APIError(
                status: .badRequest, kind: .invalidRequest, code: "malformed_request",
                message: error == .invalidEOFState
                    ? "the connection ended before the request did" : "the request is not valid HTTP/1.1: \(error.debugDescription)")
        case OrderStoreError.storageFull(let operation, _):
            self = APIError(
                status: .init(code: 507, reasonPhrase: "Insufficient Storage"), kind: .api, code: "insufficient_storage",
                message: "the database has no space left (while trying to \(operation)); nothing was written")
        default:
            self = APIError(
                status: .internalServerError, kind: .api, code: "internal_error",
                message: "the server failed to answer this request; the operator's log has the details under this request's X-Request-Id")
        }
    }

    /// Errors of Hummingbird and NIO (no route, a body over its limit) in the envelope, with their status and headers.
    private static func framework(_ error: any HTTPResponseError) -> APIError {
        switch error.status {
        case .notFound:
            return .notFound("no such resource")
        case .contentTooLarge:
            return APIError(
                status: .contentTooLarge, kind: .invalidRequest, code: "body_too_large", message: "the body is larger than this endpoint accepts")
        default:
            let code = error.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
            return APIError(
                status: error.status, kind: error.status.kind == .serverError ? .api : .invalidRequest, code: code,
                message: (error as? HTTPError)?.body ?? error.status.reasonPhrase, extraHeaders: (error as? HTTPError)?.headers ?? [:])
        }
    }
}
