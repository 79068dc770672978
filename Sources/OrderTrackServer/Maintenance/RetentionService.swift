import Foundation
import Logging
import OrderPersistence
import ServiceLifecycle

/// How long records that only grow are kept.
public struct RetentionConfiguration: Sendable {
    /// Seconds push log entries, orders' activity (the transcript's other lines) and merchant events are kept; nil
    /// keeps them forever.
    /// A fan-out to N devices adds N entries, and so does each round of their fetches.
    public var pushLog: TimeInterval?
    /// Seconds idempotency keys are honored at least, before they are forgotten.
    public var idempotencyKeys: TimeInterval
    /// Time between two prunings (the first runs at start).
    public var interval: Duration
    /// Seconds applied and ignored carrier events are kept: their idempotency keys must outlive the providers' retries
    /// (AfterShip retries for about 68 hours). Unmatched and failed events stay until their connection is deleted.
    public var carrierEvents: TimeInterval

    public init(
        pushLog: TimeInterval? = 30 * 86_400, idempotencyKeys: TimeInterval = 86_400, interval: Duration = .seconds(3_600),
        carrierEvents: TimeInterval = 7 * 86_400
    ) {
        self.pushLog = pushLog
        self.idempotencyKeys = idempotencyKeys
        self.interval = interval
        self.carrierEvents = carrierEvents
    }
}

/// Deletes expired push log entries, order activity, merchant events, idempotency keys, finished carrier events and hourly
/// insight roll-ups (``InsightRange/hourlyHistoryDays``) at start and then every `interval`, and the
/// registrations made through Track in Wallet links that expired. Instances sharing a database may all run it:
/// deleting what is already gone is harmless.
final class RetentionService: Service, Sendable {
    private let store: any RetentionStore
    private let configuration: RetentionConfiguration
    private let logger: Logger
    private let clock: ServerClock

    init(store: any RetentionStore, configuration: RetentionConfiguration, logger: Logger, clock: ServerClock) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            repeat {
                await self.pruneLoggingFailures(now: self.clock.date)
            } while (try? await self.clock.sleep(for: self.configuration.interval)) != nil
        }
    }

    /// How long an expired wallet link is kept, so that it answers "expired" (410) rather than "not found".
    static let expiredWalletLinks: TimeInterval = 30 * 86_400

    /// Deletes what expired by `now`; returns the push log entries, idempotency keys, dashboard sessions, activity
    /// entries, merchant events, wallet links, registrations of expired wallet links and carrier events deleted (a session is also deleted when
    /// presented after its expiry; this removes those never presented again). An expired link's device token fetches
    /// nothing from its expiry on; its registrations go here, so they neither take pushes nor count against the order's
    /// cap until the link itself is forgotten.
    @discardableResult
    func prune(now: Date) async throws -> Pruned {
        var (pushLog, activity, events) = (0, 0, 0)
        if let retention = configuration.pushLog {
            pushLog = try await store.deletePushLog(before: now.addingTimeInterval(-retention))
            activity = try await store.deleteActivity(before: now.addingTimeInterval(-retention))
            events = try await store.deleteEvents(before: now.addingTimeInterval(-retention))
        }
        let keys = try await store.deleteIdempotentResponses(createdBefore: now.addingTimeInterval(-configuration.idempotencyKeys))
        let sessions = try await store.deleteDashboardSessions(expiredBefore: now)
        let links = try await store.deleteWalletLinks(expiredBefore: now.addingTimeInterval(-Self.expiredWalletLinks))
        let linkRegistrations = try await store.deleteRegistrations(ofWalletLinksExpiredBefore: now)
        let carrierEvents = try await store.deleteCarrierEvents(before: now.addingTimeInterval(-configuration.carrierEvents))
        // A day more than pages may ask for: instances' clocks may differ a little.
        let hourlyInsights = try await store.deleteHourlyInsights(before: InsightRange.earliestHour(now: now).addingTimeInterval(-86_400))
        return Pruned(
            pushLog: pushLog, idempotencyKeys: keys, dashboardSessions: sessions, activity: activity, walletLinks: links,
            walletLinkRegistrations: linkRegistrations, carrierEvents: carrierEvents, events: events, hourlyInsights: hourlyInsights)
    }

    /// How many records of each kind one pruning deleted.
    struct Pruned: Equatable {
        var pushLog = 0
        var idempotencyKeys = 0
        var dashboardSessions = 0
        var activity = 0
        var walletLinks = 0
        var walletLinkRegistrations = 0
        var carrierEvents = 0
        var events = 0
        var hourlyInsights = 0
    }

    private func pruneLoggingFailures(now: Date) async {
        do {
            let deleted = try await prune(now: now)
            let total =
                deleted.pushLog + deleted.idempotencyKeys + deleted.dashboardSessions + deleted.activity + deleted.walletLinks
                + deleted.walletLinkRegistrations + deleted.carrierEvents + deleted.events + deleted.hourlyInsights
            if total > 0 {
                logger.info(
                    "pruned expired records",
                    metadata: [
                        "push_log_entries": .stringConvertible(deleted.pushLog), "idempotency_keys": .stringConvertible(deleted.idempotencyKeys),
                        "dashboard_sessions": .stringConvertible(deleted.dashboardSessions), "activity_entries": .stringConvertible(deleted.activity),
                        "wallet_links": .stringConvertible(deleted.walletLinks),
                        "wallet_link_registrations": .stringConvertible(deleted.walletLinkRegistrations),
                        "carrier_events": .stringConvertible(deleted.carrierEvents), "events": .stringConvertible(deleted.events),
                        "hourly_insights": .stringConvertible(deleted.hourlyInsights),
                    ])
            }
        } catch {
            // The next round tries again; nothing is lost by waiting.
            logger.warning("could not prune expired records", metadata: ["error": .string("\(error)")])
        }
    }
}
