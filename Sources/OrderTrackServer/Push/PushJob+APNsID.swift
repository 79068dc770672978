import Crypto
import Foundation
import OrderPersistence

extension PushJob {
    /// The push's `apns-id`: the same for every send of this job at this generation, and new for each change it
    /// carries. A push that goes out twice (its answer lost in a crash, a lease that ran out while it was in flight) then
    /// shows as one `apns-id` delivered twice in APNs' records and the mock's, where a random id would hide it.
    var apnsID: UUID {
        let digest = SHA256.hash(data: Data("\(id):\(generation):\(enqueuedAt.timeIntervalSince1970)".utf8))
        var bytes = Array(digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80 // version 8: a name-based UUID of our own
        bytes[8] = (bytes[8] & 0x3F) | 0x80 // RFC 9562 variant
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
