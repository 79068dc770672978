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
    case retryable(status: Int?, reason: APNsFailureReason)
    /// Our setup is wrong (certificate, key, topic, endpoint); every push for this credential or topic will fail
    /// until an operator fixes it. `status` is nil for TLS failures.
    case configurationError(status: Int?, reason: APNsFailureReason)
    /// APNs refused this particular request as malformed (payload, headers).
    case rejected(status: Int, reason: APNsFailureReason)

    /// Classifies an APNs answer. `timestamp` is the 410 body's milliseconds since 1970.
    static func classify(status: Int, reason text: String?, timestamp: Int64?, apnsID: UUID, receivedAt: Date) -> APNsResult {
        if status == 200 { return .delivered(apnsID: apnsID) }
        let reason = APNsErrorReason(text ?? "HTTP \(status)")
        if status == 410 {
            let since = timestamp.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? receivedAt
            return .unregistered(since: since)
        }
        if reason == .badDeviceToken { return .badDeviceToken }
        if reason.isRetryable || status == 429 || status >= 500 { return .retryable(status: status, reason: .apns(reason)) }
        if reason.isConfigurationError || status == 403 || status == 404 || status == 405 {
            return .configurationError(status: status, reason: .apns(reason))
        }
        return .rejected(status: status, reason: .apns(reason))
    }

    /// Whether sending the same push later may succeed.
    public var isRetryable: Bool {
        if case .retryable = self { return true }
        return false
    }

    /// The result in words, with the status and reason, for logs.
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

/// Why a push failed: APNs' answer, or a failure before any answer came.
public enum APNsFailureReason: Sendable, Hashable, CustomStringConvertible {
    /// APNs answered with this `reason`.
    case apns(APNsErrorReason)
    /// No answer: the connection, TLS or the provider token failed first.
    case transport(APNsTransportFailure)

    /// A short fixed word for metric labels: APNs' reason, or the transport failure's code.
    public var label: String {
        switch self {
        case .apns(let reason): return reason.label
        case .transport(let failure): return failure.code.rawValue
        }
    }

    /// APNs' reason text, or the transport failure's code and detail.
    public var description: String {
        switch self {
        case .apns(let reason): return reason.rawValue
        case .transport(let failure): return failure.description
        }
    }
}

/// The `reason` of an APNs error answer, modelled on APNSwift's `APNSError.ErrorReason`: Apple's documented reasons
/// as cases, anything newer (or "HTTP <status>" when APNs gives none) as ``unknown(_:)``.
public enum APNsErrorReason: Sendable, Hashable, CustomStringConvertible {
    /// Reasons APNs gives with status 400: the request's headers, token or topic are wrong.
    case badCollapseId, badDeviceToken, badExpirationDate, badMessageId, badPriority, badTopic, deviceTokenNotForTopic
    /// More reasons APNs gives with status 400; of these only `IdleTimeout` is worth sending again.
    case duplicateHeaders, idleTimeout, invalidPushType, missingDeviceToken, missingTopic, payloadEmpty, topicDisallowed
    /// Reasons APNs gives with status 403: the client certificate or provider token is not accepted.
    case badCertificate, badCertificateEnvironment, expiredProviderToken, forbidden, invalidProviderToken, missingProviderToken
    /// More 403 reasons about the provider token, then 404 `BadPath`, 405 `MethodNotAllowed` and the 410 reasons
    /// `ExpiredToken` and `Unregistered` (the token is no longer valid for the topic).
    case unrelatedKeyIdInToken, badEnvironmentKeyIdInToken, badPath, methodNotAllowed, expiredToken, unregistered
    /// 413 `PayloadTooLarge` (over 4 KB), 429 for too many token updates or requests, and the 500 and 503 reasons
    /// of a server in trouble.
    case payloadTooLarge, tooManyProviderTokenUpdates, tooManyRequests, internalServerError, serviceUnavailable, shutdown
    /// A reason this list does not know.
    case unknown(String)

    private static let known: [(APNsErrorReason, String)] = [
        (.badCollapseId, "BadCollapseId"), (.badDeviceToken, "BadDeviceToken"), (.badExpirationDate, "BadExpirationDate"),
        (.badMessageId, "BadMessageId"), (.badPriority, "BadPriority"), (.badTopic, "BadTopic"),
        (.deviceTokenNotForTopic, "DeviceTokenNotForTopic"), (.duplicateHeaders, "DuplicateHeaders"), (.idleTimeout, "IdleTimeout"),
        (.invalidPushType, "InvalidPushType"), (.missingDeviceToken, "MissingDeviceToken"), (.missingTopic, "MissingTopic"),
        (.payloadEmpty, "PayloadEmpty"), (.topicDisallowed, "TopicDisallowed"), (.badCertificate, "BadCertificate"),
        (.badCertificateEnvironment, "BadCertificateEnvironment"), (.expiredProviderToken, "ExpiredProviderToken"), (.forbidden, "Forbidden"),
        (.invalidProviderToken, "InvalidProviderToken"), (.missingProviderToken, "MissingProviderToken"),
        (.unrelatedKeyIdInToken, "UnrelatedKeyIdInToken"), (.badEnvironmentKeyIdInToken, "BadEnvironmentKeyIdInToken"), (.badPath, "BadPath"),
        (.methodNotAllowed, "MethodNotAllowed"), (.expiredToken, "ExpiredToken"), (.unregistered, "Unregistered"),
        (.payloadTooLarge, "PayloadTooLarge"), (.tooManyProviderTokenUpdates, "TooManyProviderTokenUpdates"),
        (.tooManyRequests, "TooManyRequests"), (.internalServerError, "InternalServerError"), (.serviceUnavailable, "ServiceUnavailable"),
        (.shutdown, "Shutdown"),
    ]
    private static let byText = Dictionary(uniqueKeysWithValues: known.map { ($0.1, $0.0) })
    private static let byReason = Dictionary(uniqueKeysWithValues: known.map { ($0.0, $0.1) })

    /// The reason APNs' text names.
    public init(_ text: String) {
        self = Self.byText[text] ?? .unknown(text)
    }

    /// APNs' text for the reason.
    public var rawValue: String {
        if case .unknown(let text) = self { return text }
        return Self.byReason[self]!
    }

    /// APNs' text for a known reason; for an unknown one its letters and digits (at most 40), so a metric's label
    /// values stay few and safe.
    public var label: String {
        guard case .unknown(let text) = self else { return rawValue }
        let label = String(text.prefix(40)).filter { $0.isLetter || $0.isNumber }
        return label.isEmpty ? "Unknown" : label
    }

    /// Reasons that go away by waiting.
    var isRetryable: Bool {
        switch self {
        case .tooManyRequests, .tooManyProviderTokenUpdates, .internalServerError, .serviceUnavailable, .shutdown, .idleTimeout: return true
        default: return false
        }
    }

    /// Reasons that mean the provider's credentials, topic or endpoint are wrong.
    var isConfigurationError: Bool {
        switch self {
        case .deviceTokenNotForTopic, .topicDisallowed, .badTopic, .missingTopic, .badCertificate, .badCertificateEnvironment,
            .invalidProviderToken, .missingProviderToken, .expiredProviderToken, .forbidden, .unrelatedKeyIdInToken,
            .badEnvironmentKeyIdInToken, .badPath, .methodNotAllowed:
            return true
        default: return false
        }
    }

    /// APNs' text for the reason (``rawValue``).
    public var description: String { rawValue }
}

/// A push that got no answer from APNs. Equal when the codes are equal: the detail is for people, not for matching.
public struct APNsTransportFailure: Sendable, Hashable, CustomStringConvertible {
    /// What failed; the raw value is a short word for logs and metric labels.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// No answer before the deadline (or no connection in time).
        case timedOut = "Timeout"
        /// The connection or stream closed before APNs answered.
        case connectionLost = "ConnectionLost"
        /// The client was shut down.
        case clientShutDown = "ClientShutDown"
        /// The server did not speak HTTP/2.
        case noHTTP2 = "NoHTTP2"
        /// The TLS handshake failed: trust roots or client certificate.
        case tlsHandshakeFailed = "TLSHandshakeFailed"
        /// The server refused the client certificate with a TLS alert; the detail is the alert's name.
        case certificateRefused = "CertificateRefused"
        /// Another TLS failure.
        case tlsFailed = "TLSFailed"
        /// The provider token could not be signed.
        case providerTokenUnsigned = "ProviderTokenUnsigned"
    }

    /// What failed, for matching and metric labels.
    public var code: Code
    /// What happened, in words.
    public var detail: String

    /// Creates a failure with its code and a description for people.
    public init(_ code: Code, detail: String) {
        self.code = code
        self.detail = detail
    }

    /// Whether the codes are equal; the details are not compared.
    public static func == (left: APNsTransportFailure, right: APNsTransportFailure) -> Bool { left.code == right.code }

    /// Hashes the code only, consistent with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `Code (detail)`, for logs and the push log.
    public var description: String { "\(code.rawValue) (\(detail))" }
}
