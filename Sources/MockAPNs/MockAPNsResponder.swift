import Foundation

/// Decides the answer to one complete request: validation like APNs, then authentication, then faults.
struct MockAPNsResponder: Sendable {
    let configuration: MockAPNsConfiguration
    let validator: APNsRequestValidator
    let tokenVerifier: ProviderTokenVerifier?
    let state: MockAPNsState

    init(configuration: MockAPNsConfiguration, state: MockAPNsState) throws(MockAPNsError) {
        self.configuration = configuration
        self.validator = APNsRequestValidator(allowedTopics: configuration.allowedTopics)
        if case .providerToken(let keyID, let teamID, let publicKeyPEM) = configuration.authentication {
            tokenVerifier = try ProviderTokenVerifier(keyID: keyID, teamID: teamID, publicKeyPEM: publicKeyPEM)
        } else {
            tokenVerifier = nil
        }
        self.state = state
    }

    func answer(_ request: MockRequest, now: Date) -> MockAnswer {
        if let tokenVerifier {
            // APNs checks the provider token before anything about the notification.
            let authorization = request.value("authorization")
            if let failure = tokenVerifier.check(authorization: authorization, now: now) { return failure }
            if let authorization, state.noteProviderToken(authorization) { return .error(403, "ExpiredProviderToken") }
        }
        if let failure = validator.check(request) { return failure }
        let token = request.deviceToken!.lowercased()
        let attempt = state.countAttempt(token: token)
        if let failures = configuration.failFirstAttempts[token] ?? MockAPNsFault.failFirstCount(token), attempt <= failures {
            return .error(503, "ServiceUnavailable")
        }
        guard let fault = state.faultForEveryToken ?? configuration.faults[token] ?? MockAPNsFault.byPrefix(token) else { return .accepted }
        switch fault {
        case .unregistered:
            var answer = MockAnswer.error(410, "Unregistered")
            answer.timestamp = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
            return answer
        case .badDeviceToken: return .error(400, "BadDeviceToken")
        case .tooManyRequests: return .error(429, "TooManyRequests")
        case .internalServerError: return .error(500, "InternalServerError")
        case .serviceUnavailable: return .error(503, "ServiceUnavailable")
        case .status(let status, let reason): return .error(status, reason)
        case .dropConnection:
            var answer = MockAnswer.accepted
            answer.action = .dropConnection
            return answer
        case .resetStream:
            var answer = MockAnswer.accepted
            answer.action = .resetStream
            return answer
        case .slowResponse:
            var answer = MockAnswer.accepted
            answer.action = .respondAfter(configuration.slowResponseDelay)
            return answer
        }
    }
}
