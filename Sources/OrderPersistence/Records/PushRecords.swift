import Foundation

/// A pending push to one device token, claimed by a sender for a limited time.
public struct PushJob: Sendable, Hashable {
    /// The outbox row's id.
    public var id: Int64
    /// The APNs topic to push on.
    public var orderTypeIdentifier: String
    /// The device token to push to; one job per token and order type.
    public var pushToken: String
    /// The order whose change last queued this job (a push covers every order of the type on the device).
    public var orderIdentifier: String
    /// Changes coalesced into the job so far; a change during sending makes the job go out again.
    public var generation: Int64
    /// Send attempts including the current one.
    public var attempts: Int
    /// When the oldest change still waiting for this push was queued.
    public var enqueuedAt: Date
    /// Who holds the claim; completing requires it, so a sender whose lease expired cannot finish someone else's job.
    public var leaseOwner: String
    /// Where the job stood in the queue when it was claimed.
    public var position: PushQueuePosition

    /// Creates a job as ``PushOutbox/claimPushJobs(limit:leaseOwner:leaseDuration:after:)`` returns it.
    public init(
        id: Int64, orderTypeIdentifier: String, pushToken: String, orderIdentifier: String, generation: Int64, attempts: Int,
        enqueuedAt: Date, leaseOwner: String, position: PushQueuePosition
    ) {
        self.id = id
        self.orderTypeIdentifier = orderTypeIdentifier
        self.pushToken = pushToken
        self.orderIdentifier = orderIdentifier
        self.generation = generation
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
        self.leaseOwner = leaseOwner
        self.position = position
    }
}

/// A place in the push queue's claim order (due time, then id), from which the next claim can go on.
///
/// Claiming from where the last claim ended reads only the jobs it takes. Claiming from the start would step over
/// every job already in flight and, on PostgreSQL, over the index entries of every job sent since the last vacuum: a
/// claim late in a 100,000-device fan-out took 35 ms that way and 0.4 ms from a position.
public struct PushQueuePosition: Sendable, Hashable, Comparable {
    /// When the job came due, in milliseconds since 1970.
    public var availableAt: Int64
    /// The job's id, which orders jobs due at the same time.
    public var id: Int64

    /// Creates the position of the job `id`, due at `availableAt`.
    public init(availableAt: Int64, id: Int64) {
        self.availableAt = availableAt
        self.id = id
    }

    /// Whether `lhs` comes before `rhs` in claim order.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.availableAt, lhs.id) < (rhs.availableAt, rhs.id)
    }
}

/// What became of one send attempt, as the store should record it.
public enum PushJobResolution: Sendable, Hashable {
    /// APNs accepted the push: the job is done unless a change arrived meanwhile.
    case delivered
    /// Try again at the given time.
    case retry(at: Date)
    /// Stop trying until a new change arrives (configuration errors, retries exhausted).
    case park
    /// The token is dead: delete its registrations of this order type (only those registered before `before`, when
    /// given, as APNs' 410 timestamp says) and the job.
    case dropToken(registeredBefore: Date?)
}

/// What a send attempt led to, as the push log records it (the raw value is the stored and published text).
public enum PushOutcome: String, Sendable, Hashable, CaseIterable {
    /// APNs accepted the push.
    case delivered
    /// A retryable failure: the job is due again after a backoff.
    case retrying
    /// No more attempts until the next change (configuration errors, rejected pushes, retries exhausted).
    case parked
    /// APNs called the token dead: its registrations were deleted.
    case tokenRemoved = "token-removed"
}

/// One line of an order's push transcript.
public struct PushLogEntry: Sendable, Hashable {
    /// The type of the order the push was for.
    public var orderTypeIdentifier: String
    /// The order the push was for.
    public var orderIdentifier: String
    /// The last 8 characters of the push token: enough to tell devices apart, useless to an attacker.
    public var tokenSuffix: String
    /// Which attempt of the job this was, from 1.
    public var attempt: Int
    /// The APNs HTTP status, if APNs answered.
    public var status: Int?
    /// APNs' reason, or the failure in words; `nil` when delivered.
    public var reason: String?
    /// The `apns-id` APNs confirmed, when delivered.
    public var apnsID: String?
    /// What the attempt led to.
    public var outcome: PushOutcome
    /// When the attempt was answered.
    public var at: Date

    /// Creates a log entry.
    public init(
        orderTypeIdentifier: String, orderIdentifier: String, tokenSuffix: String, attempt: Int, status: Int?, reason: String?,
        apnsID: String?, outcome: PushOutcome, at: Date
    ) {
        self.orderTypeIdentifier = orderTypeIdentifier
        self.orderIdentifier = orderIdentifier
        self.tokenSuffix = tokenSuffix
        self.attempt = attempt
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.outcome = outcome
        self.at = at
    }
}
