import Foundation
import WireFormats

/// One push to one device. The defaults are this project's decision for Wallet orders:
/// background push, priority 5, body `{}`, expiring after the client's default (24 h).
public struct APNsPush: Sendable, Hashable {
    /// The device's push token, hex.
    public var deviceToken: String
    /// `apns-topic`: for orders, the order type identifier.
    public var topic: String
    /// `apns-expiration`; nil means now + `APNsConfiguration.defaultExpiration`.
    public var expiration: Date?
    /// `apns-priority`.
    public var priority: Int
    /// `apns-push-type`.
    public var pushType: String
    /// The JSON body.
    public var payload: String
    /// `apns-id`, for tracing the push in logs and APNs' answer.
    public var apnsID: UUID

    /// Creates a push to `deviceToken` on `topic` with this project's Wallet defaults: a background push with
    /// priority 5 and the body `{}`, expiring after the client's ``APNsConfiguration/defaultExpiration``, with a new
    /// random `apns-id`.
    public init(
        deviceToken: String, topic: String, expiration: Date? = nil, priority: Int = 5, pushType: String = "background",
        payload: String = "{}", apnsID: UUID = UUID()
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.expiration = expiration
        self.priority = priority
        self.pushType = pushType
        self.payload = payload
        self.apnsID = apnsID
    }
}

extension UUID {
    /// The UUID as `uuidString` writes it (upper-case hex, 8-4-4-4-12), made here: Foundation on Linux formats it with
    /// `sprintf`, and formatting the `apns-id` and parsing APNs' copy of it back were about 3 % of a fan-out's CPU.
    public var apnsIDText: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var index = 0
                for (offset, byte) in bytes.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        out[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    out[index] = Hex.digit(byte >> 4, upperCase: true)
                    out[index + 1] = Hex.digit(byte & 0x0F, upperCase: true)
                    index += 2
                }
                return index
            }
        }
    }
}
