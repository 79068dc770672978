import Foundation

/// One request the mock answered, as it arrived.
public struct RecordedPush: Sendable, Hashable, Codable {
    /// The device token from the path `/3/device/<token>`.
    public var deviceToken: String
    /// The `apns-topic` header (empty when missing).
    public var topic: String
    /// Every regular header with its lower-case name; the last value wins for repeated names.
    public var headers: [String: String]
    /// The request body as UTF-8 text.
    public var body: String
    /// When the request was complete.
    public var receivedAt: Date
    /// The HTTP status the mock answered (200 for an accepted push), or 0 when it dropped the connection instead.
    public var status: Int
    /// The APNs `reason` of an error answer (`ConnectionDropped` for a dropped connection).
    public var reason: String?
    /// The `apns-id` the mock answered with: the request's, or a new one.
    public var apnsID: String
    /// Which TCP connection carried the request (1, 2, … in accept order).
    public var connectionID: Int

    /// Whether APNs would have accepted the push.
    public var accepted: Bool { status == 200 }
}
