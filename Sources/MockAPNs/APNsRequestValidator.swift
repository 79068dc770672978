import Foundation

/// Checks a request the way APNs documents it, answering with APNs' status codes and reasons.
struct APNsRequestValidator: Sendable {
    static let maximumPayloadBytes = 4096
    static let pushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk", "widgets", "controls",
    ]
    /// Headers APNs reads; repeating one is `DuplicateHeaders`.
    static let singleHeaders = ["apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-id", "apns-collapse-id", "authorization"]

    var allowedTopics: Set<String>?

    /// The error answer for a malformed request, or nil when APNs would accept it.
    func check(_ request: MockRequest) -> MockAnswer? {
        guard request.method == "POST" else { return .error(405, "MethodNotAllowed") }
        guard let token = request.deviceToken else { return .error(404, "BadPath") }
        guard !token.isEmpty else { return .error(400, "MissingDeviceToken") }
        guard Self.isDeviceToken(token) else { return .error(400, "BadDeviceToken") }
        if Self.singleHeaders.contains(where: { request.values($0).count > 1 }) { return .error(400, "DuplicateHeaders") }
        if let id = request.value("apns-id"), UUID(uuidString: id) == nil || id.count != 36 {
            return .error(400, "BadMessageId")
        }
        guard let topic = request.value("apns-topic"), !topic.isEmpty else { return .error(400, "MissingTopic") }
        if let allowedTopics, !allowedTopics.contains(topic) { return .error(400, "DeviceTokenNotForTopic") }
        let pushType = request.value("apns-push-type") ?? "alert"
        guard Self.pushTypes.contains(pushType) else { return .error(400, "InvalidPushType") }
        let priority = request.value("apns-priority") ?? "10"
        guard priority == "5" || priority == "10" || priority == "1" else { return .error(400, "BadPriority") }
        // Background pushes must be sent with priority 5.
        if pushType == "background" && priority != "5" { return .error(400, "BadPriority") }
        if let expiration = request.value("apns-expiration") {
            guard let seconds = Int64(expiration), seconds >= 0 else { return .error(400, "BadExpirationDate") }
        }
        if let collapseID = request.value("apns-collapse-id"), collapseID.utf8.count > 64 { return .error(400, "BadCollapseId") }
        guard !request.body.isEmpty else { return .error(400, "PayloadEmpty") }
        guard request.body.count <= Self.maximumPayloadBytes else { return .error(413, "PayloadTooLarge") }
        // Not an APNs reason: the mock is stricter than APNs so that a malformed payload fails loudly in tests.
        guard (try? JSONSerialization.jsonObject(with: Data(request.body))) is [String: Any] else {
            return .error(400, "BadPayload")
        }
        return nil
    }

    /// APNs tokens are hex; today 32 bytes, possibly longer later.
    static func isDeviceToken(_ token: String) -> Bool {
        token.utf8.count >= 64 && token.utf8.count % 2 == 0
            && token.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }
}
