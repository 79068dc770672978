import Foundation

/// What became of one push, classified by what the sender should do next.
public enum APNsResult: Sendable, Hashable, CustomStringConvertible {
    /// APNs accepted the push (200).
    case delivered(apnsID: UUID)
    /// 410: the token is no longer valid for the topic since `since` (APNs' `timestamp`, or the answer time when
    /// APNs gives none). Delete registrations of this token made before `since`.
    case unregistered(since: Date)
    /// 400 `BadDeviceToken` (or a token that is not hex): delete the token's registrations.
    case badDeviceToken
    /// Worth sending again later: 429, 5xx, `IdleTimeout`, timeouts and lost connections (`status` nil).
    case retryable(status: Int?, reason: String)
    /// Our setup is wrong (certificate, key, topic, endpoint); every push for this credential or topic will fail
    /// until an operator fixes it. `status` is nil for TLS failures.
    case configurationError(status: Int?, reason: String)
    /// APNs refused this particular request as malformed (payload, headers).
    case rejected(status: Int, reason: String)

    /// Reasons that mean the provider's credentials, topic or endpoint are wrong.
    static let configurationReasons: Set<String> = [
        "DeviceTokenNotForTopic", "TopicDisallowed", "BadTopic", "MissingTopic", "BadCertificate",
        "BadCertificateEnvironment", "InvalidProviderToken", "MissingProviderToken", "ExpiredProviderToken",
        "Forbidden", "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadPath", "MethodNotAllowed",
    ]
    /// Reasons that go away by waiting.
    static let retryableReasons: Set<String> = [
        "TooManyRequests", "TooManyProviderTokenUpdates", "InternalServerError", "ServiceUnavailable", "Shutdown", "IdleTimeout",
    ]

    /// Classifies an APNs answer. `timestamp` is the 410 body's milliseconds since 1970.
    static func classify(status: Int, reason: String?, timestamp: Int64?, apnsID: UUID, receivedAt: Date) -> APNsResult {
        if status == 200 { return .delivered(apnsID: apnsID) }
        let reason = reason ?? "HTTP \(status)"
        if status == 410 {
            let since = timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? receivedAt
            return .unregistered(since: since)
        }
        if reason == "BadDeviceToken" { return .badDeviceToken }
        if retryableReasons.contains(reason) || status == 429 || status >= 500 { return .retryable(status: status, reason: reason) }
        if configurationReasons.contains(reason) || status == 403 || status == 404 || status == 405 {
            return .configurationError(status: status, reason: reason)
        }
        return .rejected(status: status, reason: reason)
    }

    /// Whether sending the same push later may succeed.
    public var isRetryable: Bool {
        if case .retryable = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .delivered(let id): return "delivered (apns-id \(id.uuidString))"
        case .unregistered(let since): return "unregistered since \(since)"
        case .badDeviceToken: return "bad device token"
        case .retryable(let status, let reason): return "retryable: \(status.map { "\($0) " } ?? "")\(reason)"
        case .configurationError(let status, let reason): return "configuration error: \(status.map { "\($0) " } ?? "")\(reason)"
        case .rejected(let status, let reason): return "rejected: \(status) \(reason)"
        }
    }
}
