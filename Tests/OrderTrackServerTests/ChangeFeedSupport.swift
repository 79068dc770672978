import Foundation
import TestSupport
import Testing

/// Waiting for what a PostgreSQL instance has heard, instead of racing its change feed.
///
/// An instance applies announcements in commit order (PostgreSQL delivers `NOTIFY`s to a listener in commit order, and
/// the instance handles one at a time). So once it has applied a marker announced after a write's commit, it has
/// applied that write's announcements too, and its next read is neither overlapped nor dropped by them.
enum ChangeFeed {
    static let following = "ordertrack_change_feed_following"
    static let interruptions = "ordertrack_change_feed_interruptions_total"
    /// Only markers announce an order type in these tests' windows (a real change of an order type is one too).
    static let markersApplied = #"ordertrack_change_feed_announcements_total{kind="order_type"}"#
    static let orderHits = #"ordertrack_cache_hits_total{cache="orders"}"#
    static let registrationsHits = #"ordertrack_cache_hits_total{cache="registrations"}"#

    /// Announces a change of an order type nobody has, on `psqlURL`'s database for tables in `schema`, as a commit's
    /// trigger would.
    static func announceMarker(psqlURL: String, schema: String) throws {
        _ = try ExternalTools.run(
            "/usr/bin/env",
            [
                "psql", psqlURL, "-Atc",
                "SELECT pg_notify('ordertrack_changes', json_build_object('s', '\(schema)', 't', 'marker.\(UUID().uuidString)')::text)",
            ])
    }

    /// Returns once the instance whose `/metrics` `metric` reads has applied every change committed before this call.
    /// A marker is announced on every check: one sent before the instance listened is lost, and any one applied after
    /// this call began proves the same.
    static func settle(psqlURL: String, schema: String, metric: (String) async throws -> Double) async throws {
        let before = try await metric(markersApplied)
        try await MultiInstanceTests.waitUntil(timeout: .seconds(30)) {
            try announceMarker(psqlURL: psqlURL, schema: schema)
            return try await metric(markersApplied) > before
        }
    }

    /// The `schema` parameter of an OrderTrack database URL (`public` without one).
    static func schema(of databaseURL: String) -> String {
        URLComponents(string: databaseURL)?.queryItems?.first { $0.name == "schema" }?.value ?? "public"
    }

    /// The URL without OrderTrack's own parameters, for psql.
    static func psqlURL(of databaseURL: String) -> String {
        guard var components = URLComponents(string: databaseURL) else { return databaseURL }
        let kept = (components.queryItems ?? []).filter { $0.name == "sslmode" }
        components.queryItems = kept.isEmpty ? nil : kept
        return components.string ?? databaseURL
    }
}

extension Client {
    /// A counter or gauge of this server's `/metrics`, by its name with labels as rendered; 0 when absent.
    func metric(_ name: String) async throws -> Double {
        let text = try await call(.get, "/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }
}
