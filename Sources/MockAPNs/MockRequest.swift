import Foundation

/// A complete HTTP/2 request as the stream handler collected it.
struct MockRequest: Sendable {
    var method: String?
    var path: String?
    /// Regular (non-pseudo) headers in arrival order, names lower-case.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func values(_ name: String) -> [String] { headers.filter { $0.name == name }.map(\.value) }
    func value(_ name: String) -> String? { values(name).last }

    /// The device token from `/3/device/<token>`, or nil if the path has another shape.
    var deviceToken: String? {
        guard let path, path.hasPrefix("/3/device/") else { return nil }
        return String(path.dropFirst("/3/device/".count))
    }
}

/// How the mock answers one request.
struct MockAnswer: Sendable {
    enum Action: Sendable {
        case respond
        case respondAfter(Duration)
        case dropConnection
        case resetStream
    }
    var status: Int
    var reason: String?
    /// Milliseconds since 1970 for 410 answers.
    var timestamp: Int64?
    var action: Action = .respond

    static let accepted = MockAnswer(status: 200)
    static func error(_ status: Int, _ reason: String) -> MockAnswer { MockAnswer(status: status, reason: reason) }

    /// The JSON error body APNs sends (`{"reason":…}` plus `timestamp` for 410), empty on success.
    var body: String {
        guard let reason else { return "" }
        if let timestamp { return #"{"reason":"\#(reason)","timestamp":\#(timestamp)}"# }
        return #"{"reason":"\#(reason)"}"#
    }
}
