import BoundedCache
import Synchronization

/// Token buckets by key (a client address, a token, an API key), in this instance's memory and bounded: the least
/// recently seen keys are forgotten first, so an attacker cycling through keys costs memory no larger than
/// `trackedKeys` buckets (a forgotten bucket starts full again).
final class TokenBuckets: Sendable {
    private struct Bucket: Sendable {
        var tokens: Double
        var updated: ServerClock.Instant
    }

    let limit: RateLimit
    private let buckets: Mutex<LRUCache<String, Bucket>>
    private let clock: ServerClock

    init(limit: RateLimit, trackedKeys: Int, clock: ServerClock) {
        self.limit = limit
        self.clock = clock
        buckets = Mutex(LRUCache(capacity: trackedKeys))
    }

    /// Takes `cost` tokens from `key`'s bucket: `nil` when they were there, otherwise how long until they will be
    /// (nothing is taken then).
    func take(_ key: String, cost: Double = 1) -> Duration? {
        let now = clock.now
        return buckets.withLock { buckets in
            var bucket = refilled(buckets.value(forKey: key), now: now)
            defer { buckets.setValue(bucket, forKey: key, cost: 1) }
            guard bucket.tokens >= cost else { return wait(for: cost - bucket.tokens) }
            bucket.tokens -= cost
            return nil
        }
    }

    /// How long until `key`'s bucket holds a token again; `nil` when it holds one now. Takes nothing.
    func emptyFor(_ key: String) -> Duration? {
        let now = clock.now
        return buckets.withLock { buckets in
            guard let stored = buckets.value(forKey: key) else { return nil }
            let bucket = refilled(stored, now: now)
            return bucket.tokens >= 1 ? nil : wait(for: 1 - bucket.tokens)
        }
    }

    private func refilled(_ bucket: Bucket?, now: ServerClock.Instant) -> Bucket {
        guard var bucket else { return Bucket(tokens: limit.burst, updated: now) }
        bucket.tokens = min(limit.burst, bucket.tokens + max(0, bucket.updated.duration(to: now).seconds) * limit.perSecond)
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
