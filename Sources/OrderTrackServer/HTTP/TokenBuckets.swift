import BoundedCache
import Synchronization

/// Token buckets by key (a client address, a token, an API key), in this instance's memory and bounded: the least
/// recently seen keys are forgotten first, so an attacker cycling through keys costs memory no larger than
/// `trackedKeys` buckets (a forgotten bucket starts full again).
final class TokenBuckets: Sendable {
    private struct Bucket: Sendable {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let limit: RateLimit
    private let buckets: Mutex<LRUCache<String, Bucket>>

    init(limit: RateLimit, trackedKeys: Int) {
        self.limit = limit
        buckets = Mutex(LRUCache(capacity: trackedKeys))
    }

    /// Takes `cost` tokens from `key`'s bucket: `nil` when they were there, otherwise how long until they will be
    /// (nothing is taken then).
    func take(_ key: String, cost: Double = 1, now: ContinuousClock.Instant = .now) -> Duration? {
        buckets.withLock { buckets in
            var bucket = refilled(buckets.value(forKey: key), now: now)
            defer { buckets.setValue(bucket, forKey: key, cost: 1) }
            guard bucket.tokens >= cost else { return wait(for: cost - bucket.tokens) }
            bucket.tokens -= cost
            return nil
        }
    }

    /// How long until `key`'s bucket holds a token again; `nil` when it holds one now. Takes nothing.
    func emptyFor(_ key: String, now: ContinuousClock.Instant = .now) -> Duration? {
        buckets.withLock { buckets in
            guard let stored = buckets.value(forKey: key) else { return nil }
            let bucket = refilled(stored, now: now)
            return bucket.tokens >= 1 ? nil : wait(for: 1 - bucket.tokens)
        }
    }

    private func refilled(_ bucket: Bucket?, now: ContinuousClock.Instant) -> Bucket {
        guard var bucket else { return Bucket(tokens: limit.burst, updated: now) }
        let elapsed = now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.tokens = min(limit.burst, bucket.tokens + max(0, seconds) * limit.perSecond)
        bucket.updated = now
        return bucket
    }

    private func wait(for tokens: Double) -> Duration {
        guard limit.perSecond > 0 else { return .seconds(86_400) }
        return .milliseconds(Int64((tokens / limit.perSecond * 1000).rounded(.up)))
    }
}

extension Duration {
    /// Whole seconds, rounded up and at least 1: the value of a `Retry-After` header.
    var retryAfterSeconds: Int64 {
        let (seconds, attoseconds) = components
        return max(1, seconds + (attoseconds > 0 ? 1 : 0))
    }
}
