import AsyncHTTPClient
import Foundation
import NIOCore
import TestSupport
import Testing

/// Waiting for what a PostgreSQL instance has heard, instead of racing its change feed.
///
/// An instance applies announcements in commit order (PostgreSQL delivers `NOTIFY`s to a listener in commit order, and
/// the instance handles one at a time). So once it has applied a marker announced after a write's commit, it has
/// applied that write's announcements too, and its next read is neither overlapped nor dropped by them.
package enum ChangeFeed {
    package static let following = "ordertrack_change_feed_following"
    package static let interruptions = "ordertrack_change_feed_interruptions_total"
    /// Only markers announce an order type in these tests' windows (a real change of an order type is one too).
    package static let markersApplied = #"ordertrack_change_feed_announcements_total{kind="order_type"}"#
    package static let orderHits = #"ordertrack_cache_hits_total{cache="orders"}"#
    package static let registrationsHits = #"ordertrack_cache_hits_total{cache="registrations"}"#

    /// Announces a change of an order type nobody has, on `psqlURL`'s database for tables in `schema`, as a commit's
    /// trigger would.
    package static func announceMarker(psqlURL: String, schema: String) throws {
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
    package static func settle(psqlURL: String, schema: String, metric: (String) async throws -> Double) async throws {
        let before = try await metric(markersApplied)
        try await Poll.expect(within: .seconds(30)) {
            try announceMarker(psqlURL: psqlURL, schema: schema)
            return try await metric(markersApplied) > before
        }
    }

    /// The `schema` parameter of an OrderTrack database URL (`public` without one).
    package static func schema(of databaseURL: String) -> String {
        URLComponents(string: databaseURL)?.queryItems?.first { $0.name == "schema" }?.value ?? "public"
    }

    /// The URL without OrderTrack's own parameters, for psql.
    package static func psqlURL(of databaseURL: String) -> String {
        guard var components = URLComponents(string: databaseURL) else { return databaseURL }
        let kept = (components.queryItems ?? []).filter { $0.name == "sslmode" }
        components.queryItems = kept.isEmpty ? nil : kept
        return components.string ?? databaseURL
    }
}

extension Client {
    /// A counter or gauge of this server's `/metrics`, by its name with labels as rendered; 0 when absent.
    package func metric(_ name: String) async throws -> Double {
        ServerMetrics.value(name, in: try await call(.get, "/metrics").text)
    }
}

/// The Prometheus text of a server's `/metrics`, read by a test.
package enum ServerMetrics {
    /// A counter or gauge by its name with labels as rendered (`ordertrack_cache_hits_total{cache="orders"}`); 0 when
    /// absent.
    package static func value(_ name: String, in text: String) -> Double {
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// A counter or gauge of the `/metrics` of the server at `base` (`http://127.0.0.1:PORT`), another process.
    package static func value(_ name: String, at base: String) async throws -> Double {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/metrics"), timeout: .seconds(30))
        return value(name, in: String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }
}

extension Poll {
    /// Waits for what other processes do; records an issue (at the caller) if `condition` does not hold within
    /// `timeout`.
    package static func expect(
        within timeout: Duration, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
    ) async throws {
        if try await !until(timeout: timeout, every: .milliseconds(200), condition) {
            Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
        }
    }
}
