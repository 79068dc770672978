import CarrierTestSupport
import CarrierTracking
import Foundation
import TestSupport
import Testing

extension Fixture {
    static func event(_ name: String, _ provider: CarrierProvider, headers: [String: String] = [:]) throws -> CarrierEvent {
        let result = try CarrierWebhookParser.parse(try bytes(name), provider: provider, headers: CarrierRequestHeaders(headers))
        guard case .event(let event) = result else { throw CarrierWebhookError(.malformedBody, "fixture \(name) parsed to \(result)") }
        return event
    }
}

/// Asserts that `body` throws a ``CarrierWebhookError`` with `code`, and returns it.
@discardableResult
func expectError(_ code: CarrierWebhookError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async
    -> CarrierWebhookError?
{
    do {
        try await body()
        Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
    } catch let error as CarrierWebhookError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A date from RFC 3339 text.
func date(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("bad test date \(text)") }
    return date
}
