import Hummingbird
import NIOCore
import OrderModel

/// `POST /api/v1/orders/bulk`: NDJSON in, one NDJSON result line per input line out, streamed as orders finish, so a
/// day's shipments take one request and memory stays bounded by a chunk of lines, not the file.
package struct BulkRoutes: Sendable {
    let bulk: BulkUpdates

    func add(to merchantAPI: RouterGroup<MerchantRequestContext>) {
        merchantAPI.post("orders/bulk") { request, context -> Response in
            let (merchant, author) = (context.merchant, context.author(.merchantAPI))
            return Response(
                status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    try await Self.applyLines(of: request.body) { lines in
                        try await bulk.apply(lines, merchant: merchant, author: author) { outcome in
                            try await writer.write(Self.line(Self.json(outcome)))
                        }
                    } refused: { result in
                        try await writer.write(Self.line(result))
                    }
                    try await writer.finish(nil)
                })
        }
    }

    /// Splits the body into lines, in chunks for `apply`; an over-long line, and the first line past the limit, get
    /// `refused`'s result line instead (reading stops at the limit). Blank lines are skipped but counted.
    static func applyLines(
        of body: RequestBody, apply: ([BulkUpdates.Line]) async throws -> Void, refused: (JSONValue) async throws -> Void
    ) async throws {
        var pending: [UInt8] = []
        var chunk: [BulkUpdates.Line] = []
        var number = 0
        var skipping = false
        func take(_ bytes: ArraySlice<UInt8>) async throws -> Bool {
            number += 1
            let line = Array(bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes)
            guard number <= BulkUpdates.maximumLines else {
                try await refused(
                    failure(
                        line: number,
                        OrderTrackError(.bulkTooLarge, "a bulk update takes at most \(BulkUpdates.maximumLines) lines; send the rest in another")))
                return false
            }
            guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else { return true }
            chunk.append(BulkUpdates.Line(number: number, bytes: line))
            if chunk.count == BulkUpdates.chunk {
                try await apply(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
            return true
        }
        for try await buffer in body {
            for byte in buffer.readableBytesView {
                if byte == UInt8(ascii: "\n") {
                    if skipping {
                        skipping = false
                        continue
                    }
                    guard try await take(pending[...]) else { return try await flush(chunk, apply) }
                    pending.removeAll(keepingCapacity: true)
                } else if !skipping {
                    pending.append(byte)
                    if pending.count > BulkUpdates.maximumLineBytes {
                        // The line fails alone; the rest of it is read past.
                        number += 1
                        try await refused(
                            failure(
                                line: number,
                                OrderTrackError(.invalidBulkLine, "the line is longer than \(BulkUpdates.maximumLineBytes) bytes")))
                        pending.removeAll(keepingCapacity: true)
                        skipping = true
                    }
                }
            }
        }
        if !pending.isEmpty, !skipping { _ = try await take(pending[...]) }
        try await flush(chunk, apply)
    }

    private static func flush(_ chunk: [BulkUpdates.Line], _ apply: ([BulkUpdates.Line]) async throws -> Void) async throws {
        if !chunk.isEmpty { try await apply(chunk) }
    }

    /// A line's result as the answer shows it: what became of the order, or the error envelope's error with its status.
    /// The dashboard's CSV page shows the same.
    package static func json(_ outcome: BulkUpdates.Outcome) -> JSONValue {
        switch outcome.result {
        case .success(let applied):
            var result: JSONValue = [
                "line": .integer(outcome.line), "result": applied.update.changed ? "applied" : "unchanged", "status": 200,
                "orderTypeIdentifier": .string(applied.orderTypeIdentifier), "orderIdentifier": .string(applied.orderIdentifier),
                "version": .integer(applied.update.record.version),
            ]
            if !applied.update.warnings.isEmpty { result["warnings"] = .array(applied.update.warnings.map(\.warningJSON)) }
            return result
        case .failure(let error):
            return failure(line: outcome.line, error)
        }
    }

    static func failure(line: Int, _ error: any Error) -> JSONValue {
        let envelope = APIError(answering: error)
        var object = envelope.body["error"] ?? .null
        // A line's condition is its ifMatch member, not a header.
        if object["param"] == "If-Match" { object["param"] = "ifMatch" }
        return ["line": .integer(line), "result": "failed", "status": .integer(Int(envelope.status.code)), "error": object]
    }

    static func line(_ value: JSONValue) -> ByteBuffer {
        var bytes = value.serialized()
        bytes.append(UInt8(ascii: "\n"))
        return ByteBuffer(bytes: bytes)
    }
}
