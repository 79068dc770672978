import Foundation
import OrderModel
import OrderPersistence

/// One line of the order page's transcript: a change, a device registering, leaving or fetching, or a push attempt
/// with APNs' answer.
struct TranscriptEntry: Sendable {
    var badge: String
    var tone: String
    var summary: String
    var at: Date

    init(_ push: PushLogEntry) {
        var summary = "Push to device …\(push.tokenSuffix), attempt \(push.attempt)"
        if let status = push.status { summary += " · APNs \(status)" }
        if let reason = push.reason { summary += " · \(reason)" }
        self.init(badge: WalletPreview.words(push.outcome.rawValue), tone: WalletPreview.tone(push.outcome.rawValue), summary: summary, at: push.at)
    }

    init(_ activity: OrderActivity) {
        let version = activity.version.map { "version \($0)" } ?? "a version"
        // Changes name the key (its name and id) or the dashboard, and the client address they came from.
        var author = (activity.keyName ?? activity.author).map { " by \($0)" } ?? ""
        if let keyID = activity.keyID { author += " (\(keyID))" }
        if let address = activity.address { author += " from \(address)" }
        let device = "Device \(activity.detail ?? "")"
        switch activity.kind {
        case .created:
            self.init(badge: "Created", tone: "blue", summary: "Order created, \(version)\(author)", at: activity.at)
        case .updated:
            let fields = activity.detail.map { " · changed \($0)" } ?? ""
            self.init(badge: "Updated", tone: "blue", summary: "Order updated to \(version)\(author)\(fields)", at: activity.at)
        case .registered:
            self.init(badge: "Registered", tone: "green", summary: "\(device) registered for updates", at: activity.at)
        case .unregistered:
            self.init(badge: "Unregistered", tone: "grey", summary: "\(device) unregistered", at: activity.at)
        case .fetched where activity.status == 304:
            let summary =
                activity.occurrences > 1
                ? "Devices checked for changes \(activity.occurrences) times: they have \(version) (304)"
                : "A device checked for changes: it has \(version) (304)"
            self.init(badge: "Checked", tone: "grey", summary: summary, at: activity.at)
        case .fetched:
            let status = activity.status ?? 200
            let summary =
                activity.occurrences > 1
                ? "Devices fetched \(version) \(activity.occurrences) times (\(status))" : "A device fetched \(version) (\(status))"
            self.init(badge: "Fetched", tone: "green", summary: summary, at: activity.at)
        }
    }

    private init(badge: String, tone: String, summary: String, at: Date) {
        self.badge = badge
        self.tone = tone
        self.summary = summary
        self.at = at
    }

    /// Activity and push attempts in one list, newest first, at most `limit`.
    static func merged(activity: [OrderActivity], pushes: [PushLogEntry], limit: Int) -> [TranscriptEntry] {
        let entries = pushes.map(TranscriptEntry.init) + activity.map(TranscriptEntry.init)
        // A stable sort keeps each source's own newest-first order among equal times, and lists a push recorded in the
        // same millisecond as the change that caused it above that change.
        return Array(entries.enumerated().sorted { ($0.element.at, $1.offset) > ($1.element.at, $0.offset) }.map(\.element).prefix(limit))
    }

    var templateValues: [String: Any] {
        ["badge": badge, "tone": tone, "summary": summary, "atISO": DateTimeFormat.formatRFC3339(at), "at": OrderRow.format(at, withSeconds: true)]
    }
}
