/// A failure the mock answers with instead of accepting a push, chosen by device token.
///
/// Faults apply only to requests that pass validation, so a faulty token still needs a well-formed push.
public enum MockAPNsFault: Sendable, Hashable {
    /// 410 `Unregistered` with `"timestamp"` = the time of the answer in milliseconds since 1970.
    case unregistered
    /// 400 `BadDeviceToken`.
    case badDeviceToken
    /// 429 `TooManyRequests`.
    case tooManyRequests
    /// 500 `InternalServerError`.
    case internalServerError
    /// 503 `ServiceUnavailable`.
    case serviceUnavailable
    /// Close the whole TCP connection without answering (every stream on it is lost).
    case dropConnection
    /// Reset the request's stream (RST_STREAM `INTERNAL_ERROR`) without answering; the connection stays open.
    case resetStream
    /// Answer normally (200, recorded) but only after `MockAPNsConfiguration.slowResponseDelay`.
    case slowResponse
    /// Any other APNs answer, e.g. `.status(400, reason: "DeviceTokenNotForTopic")`.
    case status(Int, reason: String)

    /// Faults chosen by a device token's prefix, so tools that cannot configure the mock can still ask for one.
    ///
    /// Prefixes are hex so that any APNs client accepts the token; the rest of the token is free:
    /// - `fa170410…` 410 Unregistered with timestamp
    /// - `fa170400…` 400 BadDeviceToken
    /// - `fa170429…` 429 TooManyRequests
    /// - `fa170500…` 500 InternalServerError
    /// - `fa170503…` 503 ServiceUnavailable
    /// - `fa17dead…` connection dropped
    /// - `fa17c105…` stream reset
    /// - `fa17de1a…` slow answer (delayed by `slowResponseDelay`)
    /// - `fa17f<N>…` (N one hex digit, 1–f): the first N attempts for that token get 503, later ones succeed
    public static let prefixConvention: [(prefix: String, fault: MockAPNsFault)] = [
        ("fa170410", .unregistered),
        ("fa170400", .badDeviceToken),
        ("fa170429", .tooManyRequests),
        ("fa170500", .internalServerError),
        ("fa170503", .serviceUnavailable),
        ("fa17dead", .dropConnection),
        ("fa17c105", .resetStream),
        ("fa17de1a", .slowResponse),
    ]

    /// The fault a token asks for by prefix (see `prefixConvention`), if any.
    static func byPrefix(_ token: String) -> MockAPNsFault? {
        let token = token.lowercased()
        return prefixConvention.first { token.hasPrefix($0.prefix) }?.fault
    }

    /// N for a `fa17f<N>` token: how many first attempts fail with 503.
    static func failFirstCount(_ token: String) -> Int? {
        let token = token.lowercased()
        guard token.hasPrefix("fa17f"), token.count > 5 else { return nil }
        let digit = token[token.index(token.startIndex, offsetBy: 5)]
        guard let count = digit.hexDigitValue, count > 0 else { return nil }
        return count
    }
}
