import APNsTestSupport
import Foundation
import Testing

@testable import APNs

@Suite("Every documented APNs reason lands in the right class")
struct ClassificationTests {
    static let id = UUID()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func classify(_ status: Int, _ reason: String?, timestamp: Int64? = nil) -> APNsResult {
        APNsResult.classify(status: status, reason: reason, timestamp: timestamp, apnsID: id, receivedAt: now)
    }

    @Test("Documented reasons")
    func documentedReasons() {
        let configuration = [
            (400, "BadTopic"), (400, "DeviceTokenNotForTopic"), (400, "MissingTopic"), (400, "TopicDisallowed"),
            (403, "BadCertificate"), (403, "BadCertificateEnvironment"), (403, "ExpiredProviderToken"), (403, "Forbidden"),
            (403, "InvalidProviderToken"), (403, "MissingProviderToken"), (403, "UnrelatedKeyIdInToken"),
            (403, "BadEnvironmentKeyIdInToken"), (404, "BadPath"), (405, "MethodNotAllowed"),
        ]
        for (status, reason) in configuration {
            #expect(Self.classify(status, reason) == .configurationError(status: status, reason: .apns(APNsErrorReason(reason))))
        }
        let retryable = [
            (400, "IdleTimeout"), (429, "TooManyProviderTokenUpdates"), (429, "TooManyRequests"), (500, "InternalServerError"),
            (503, "ServiceUnavailable"), (503, "Shutdown"),
        ]
        for (status, reason) in retryable {
            #expect(Self.classify(status, reason) == .retryable(status: status, reason: .apns(APNsErrorReason(reason))))
        }
        let rejected = [
            (400, "BadCollapseId"), (400, "BadExpirationDate"), (400, "BadMessageId"), (400, "BadPriority"),
            (400, "DuplicateHeaders"), (400, "InvalidPushType"), (400, "MissingDeviceToken"), (400, "PayloadEmpty"),
            (413, "PayloadTooLarge"),
        ]
        for (status, reason) in rejected {
            #expect(Self.classify(status, reason) == .rejected(status: status, reason: .apns(APNsErrorReason(reason))))
        }
        #expect(Self.classify(400, "BadDeviceToken") == .badDeviceToken)
        #expect(Self.classify(200, nil) == .delivered(apnsID: Self.id))
        for (_, reason) in configuration + retryable + rejected {
            #expect(APNsErrorReason(reason).rawValue == reason)
            #expect(APNsErrorReason(reason) != .unknown(reason), "\(reason) is a known reason")
        }
    }

    @Test("410 uses APNs' timestamp, or the answer time without one")
    func unregisteredTimestamp() {
        #expect(
            Self.classify(410, "Unregistered", timestamp: 1_700_000_000_123) == .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000.123)))
        #expect(Self.classify(410, "ExpiredToken") == .unregistered(since: Self.now))
    }

    @Test("Unknown reasons fall back on the status")
    func unknownReasons() {
        #expect(Self.classify(502, nil) == .retryable(status: 502, reason: .apns(.unknown("HTTP 502"))))
        #expect(Self.classify(403, "SomethingNew") == .configurationError(status: 403, reason: .apns(.unknown("SomethingNew"))))
        #expect(Self.classify(400, "SomethingNew") == .rejected(status: 400, reason: .apns(.unknown("SomethingNew"))))
    }

    @Test("Bad configurations are refused with a precise error")
    func badConfigurations() throws {
        let certificate = try APNsCredential.certificate(
            chainPEM: MockAPNsPKI.shared.clientCertificatePEM, privateKeyPEM: MockAPNsPKI.shared.clientKeyPEM)
        #expect(throws: APNsClientError.invalidEndpoint("http://api.push.apple.com")) {
            try APNsClient(configuration: APNsConfiguration(endpoint: URL(string: "http://api.push.apple.com")!, credential: certificate))
        }
        #expect(throws: APNsClientError.self) { try APNsCredential.certificate(chainPEM: "junk", privateKeyPEM: "junk") }
        guard case .certificate(_, let key) = certificate else { throw APNsClientError.invalidCertificate("expected a certificate credential") }
        #expect(throws: APNsClientError.self) { try APNsClient(configuration: APNsConfiguration(credential: .certificate(chain: [], key: key))) }
        #expect(throws: APNsClientError.self) {
            try APNsClient(configuration: APNsConfiguration(credential: .token(p8PEM: "junk", keyID: "K", teamID: "T")))
        }
        #expect(throws: APNsClientError.self) {
            try APNsClient(configuration: APNsConfiguration(credential: certificate, extraTrustRootsPEM: "no certificates here"))
        }
    }
}
