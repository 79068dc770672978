import AsyncHTTPClient
import Foundation
import NIOCore
import TestSupport
import Testing

/// What a PostgreSQL instance reports of its change feed and in-memory orders at `/metrics`.
package enum ChangeFeed {
    package static let following = "ordertrack_change_feed_following"
    package static let interruptions = "ordertrack_change_feed_interruptions_total"
    package static let orderHits = #"ordertrack_cache_hits_total{cache="orders"}"#
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
