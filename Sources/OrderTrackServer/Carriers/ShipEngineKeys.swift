import AsyncHTTPClient
import BoundedCache
import CarrierTracking
import Foundation
import NIOCore
import Synchronization

/// Fetches a JSON Web Key Set document: the seam between ShipEngine key caching and the network, so tests serve keys
/// from memory.
package protocol KeySetFetcher: Sendable {
    /// The document at `url`, at most `limit` bytes.
    func fetch(_ url: URL, limit: Int, timeout: Duration) async throws -> [UInt8]
}

/// Why a key set could not be fetched; the verifier answers it as an unknown key (401).
struct KeySetFetchError: Error, CustomStringConvertible {
    var description: String
}

/// Key sets over HTTPS with the server's outbound client, which follows no redirect (a 3xx is a failure, so the
/// allow-list on the URL's host cannot be walked past).
struct HTTPKeySetFetcher: KeySetFetcher {
    let client: GatewayHTTPClient

    func fetch(_ url: URL, limit: Int, timeout: Duration) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: TimeAmount(timeout))
        guard response.status == .ok else { throw KeySetFetchError(description: "\(url.host ?? "the JWKS host") answered \(response.status.code)") }
        return Array(try await response.body.collect(upTo: limit).readableBytesView)
    }
}

/// ShipEngine's signing keys, one cached key set per JWKS URL.
///
/// A set is used for ``CarrierConfiguration/keySetLifetime``; a signature naming a key the set lacks (ShipEngine
/// rotated its keys) fetches it again, but at most once per ``CarrierConfiguration/keySetRefetchInterval`` per URL,
/// whether the fetch succeeded or not, so that invented key ids cannot make the server fetch on every request.
/// Concurrent requests share one fetch. URLs whose host the configuration does not allow are never fetched.
final class ShipEngineKeys: Sendable {
    private struct Entry: Sendable {
        var keys: ShipEngineKeySet?
        var fetchedAt: ServerClock.Instant?
        var lastAttempt: ServerClock.Instant?
        var inFlight: Task<ShipEngineKeySet, any Error>?
    }

    private let configuration: CarrierConfiguration
    private let fetcher: any KeySetFetcher
    private let clock: ServerClock
    /// Bounded: a set per URL, and URLs are few (ShipEngine's and the allowed hosts').
    private let entries = Mutex(LRUCache<URL, Entry>(capacity: 64))

    init(configuration: CarrierConfiguration, fetcher: any KeySetFetcher, clock: ServerClock) {
        self.configuration = configuration
        self.fetcher = fetcher
        self.clock = clock
    }

    /// The key provider for connections that use `url` (ShipEngine's own when `nil`).
    func provider(for url: URL?) -> any CarrierKeyProvider {
        Provider(keys: self, url: url ?? CarrierConfiguration.defaultJWKSURL)
    }

    private struct Provider: CarrierKeyProvider {
        let keys: ShipEngineKeys
        let url: URL

        func keySet(containing keyID: String) async throws -> ShipEngineKeySet {
            try await keys.keySet(at: url, containing: keyID)
        }
    }

    func keySet(at url: URL, containing keyID: String) async throws -> ShipEngineKeySet {
        guard url.scheme == "https", let host = url.host?.lowercased(), configuration.jwksHosts.contains(host) else {
            throw CarrierWebhookError(.notConfigured, "the connection's JWKS URL is not on this server's allow-list; verification fails closed")
        }
        let now = clock.now
        let task = entries.withLock { entries -> Task<ShipEngineKeySet, any Error>? in
            var entry = entries.value(forKey: url) ?? Entry()
            if let keys = entry.keys, let fetchedAt = entry.fetchedAt, fetchedAt.duration(to: now) < configuration.keySetLifetime,
                keys.keys[keyID] != nil
            {
                return nil
            }
            if let inFlight = entry.inFlight { return inFlight }
            // Fetched (or tried) too recently: answer with what is held, and the verifier refuses an unknown key.
            if let lastAttempt = entry.lastAttempt, lastAttempt.duration(to: now) < configuration.keySetRefetchInterval { return nil }
            let task = Task { try await fetch(url) }
            entry.inFlight = task
            entry.lastAttempt = now
            entries.setValue(entry, forKey: url, cost: 1)
            return task
        }
        if let task { return try await task.value }
        guard let held = entries.withLock({ $0.value(forKey: url)?.keys }) else {
            throw CarrierWebhookError(
                .unknownKey, "the JWKS could not be fetched recently; it is tried again at most every \(configuration.keySetRefetchInterval)")
        }
        return held
    }

    /// Fetches and reads the set at `url` and keeps it; after a failure the set held before stays in use until the next
    /// attempt, so a brief outage of the JWKS host does not refuse webhooks signed with known keys.
    private func fetch(_ url: URL) async throws -> ShipEngineKeySet {
        let result: Result<ShipEngineKeySet, any Error>
        do {
            let document = try await fetcher.fetch(url, limit: ShipEngineKeySet.maximumDocumentSize, timeout: configuration.keySetTimeout)
            result = .success(try ShipEngineKeySet(jwks: document))
        } catch {
            result = .failure(error)
        }
        let now = clock.now
        let held = entries.withLock { entries -> ShipEngineKeySet? in
            var entry = entries.value(forKey: url) ?? Entry()
            entry.inFlight = nil
            if case .success(let keys) = result {
                entry.keys = keys
                entry.fetchedAt = now
            }
            entries.setValue(entry, forKey: url, cost: 1)
            return entry.keys
        }
        // Nothing held means the fetch failed with no earlier set: its error.
        guard let held else { return try result.get() }
        return held
    }
}
