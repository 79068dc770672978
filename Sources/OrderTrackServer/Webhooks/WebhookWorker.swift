import Foundation
import Logging
import OrderPersistence
import ServiceLifecycle

/// Sends each enabled endpoint the merchant's events after its cursor, of its types, one at a time in sequence order:
/// an endpoint's next event waits until the current one is delivered, which keeps each order's events in order.
///
/// At least once, safe with several instances and across a kill: an endpoint is claimed with a lease, renewed after
/// each delivery, and its cursor moves only after a delivery succeeded; an endpoint whose worker died is claimed
/// again when its lease runs out and its current event sent again. A failed attempt is retried after
/// ``WebhookConfiguration/backoff(afterAttempt:)``; an endpoint still failing after
/// ``WebhookConfiguration/failureWindow`` is disabled, saying why.
final class WebhookWorker: Service, Sendable {
    private let store: any WebhookStore
    private let sender: WebhookSender
    private let configuration: WebhookConfiguration
    private let logger: Logger
    private let clock: ServerClock
    /// Local commits that appended events, poll ticks (other instances' events, retries coming due), shutdown.
    private let signal = WakeSignal()

    init(store: any WebhookStore, configuration: WebhookConfiguration, isDevelopment: Bool, logger: Logger, clock: ServerClock) {
        self.store = store
        self.configuration = configuration
        self.sender = WebhookSender(configuration: configuration, isDevelopment: isDevelopment, now: { clock.date })
        self.logger = logger
        self.clock = clock
        store.observeCommittedEvents { [signal] in signal.wake() }
    }

    func run() async throws {
        guard configuration.sendsDeliveries else {
            try? await gracefulShutdown()
            return
        }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.tickPolls() }
                await self.deliverUntilShutdown()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.signal.wake()
        }
    }

    private func tickPolls() async {
        while (try? await clock.sleep(for: configuration.pollInterval)) != nil { signal.wake() }
    }

    private func deliverUntilShutdown() async {
        await signal.applyBatches(limit: 1) {
            do {
                return try await store.claimWebhookEndpoints(limit: configuration.batchSize, leaseDuration: configuration.leaseDuration)
            } catch {
                logger.error("webhook endpoints unavailable", metadata: ["error": .string("\(error)")])
                return []
            }
        } apply: { claims in
            await withDiscardingTaskGroup { group in
                for claim in claims { group.addTask { await self.serve(claim) } }
            }
        }
    }

    /// Sends the endpoint's due events until one fails, none is left, or the claim's share is used.
    func serve(_ claim: WebhookClaim) async {
        var endpoint = claim.endpoint
        do {
            for _ in 0..<configuration.deliveriesPerClaim {
                let events = try await store.events(merchantID: endpoint.merchantID, afterSequence: endpoint.cursor, limit: 100)
                guard let last = events.last else { break }
                guard let event = events.first(where: { endpoint.accepts($0.type) }) else {
                    guard try await finish(claim, .skipped(through: last.sequence), holding: true) else { return }
                    endpoint.cursor = last.sequence
                    continue
                }
                let result = await sender.send(event, to: endpoint)
                if result.error == nil {
                    guard try await finish(claim, .succeeded(sequence: event.sequence, result), holding: true) else { return }
                    endpoint.cursor = event.sequence
                    endpoint.attempts = 0
                    endpoint.failingSince = nil
                    continue
                }
                _ = try await finish(claim, failure(result, endpoint: endpoint), holding: false)
                return
            }
            _ = try await finish(claim, .skipped(through: endpoint.cursor), holding: false)
        } catch {
            // The lease runs out and the endpoint is claimed again.
            logger.error("webhook delivery not recorded", metadata: ["endpoint": .string(endpoint.id), "error": .string("\(error)")])
        }
    }

    /// A failed attempt: retried after the backoff, or, once the endpoint has failed for the whole window, the end of
    /// its deliveries until it is enabled again.
    private func failure(_ result: WebhookAttemptResult, endpoint: WebhookEndpointRecord) -> WebhookStep {
        let now = clock.date
        let since = endpoint.failingSince ?? now
        let attempt = endpoint.attempts + 1
        if now.timeIntervalSince(since) >= configuration.failureWindow.seconds {
            let reason =
                "deliveries failed for \(Int(now.timeIntervalSince(since) / 3_600)) hours (\(attempt) attempts); the last: \(result.error ?? "failed")"
            logger.warning("webhook endpoint disabled", metadata: ["endpoint": .string(endpoint.id), "reason": .string(reason)])
            return .failed(result, retryAt: nil, disabledReason: reason)
        }
        logger.info(
            "webhook delivery failed; it is tried again later",
            metadata: ["endpoint": .string(endpoint.id), "event": .string(result.eventID), "attempt": .stringConvertible(attempt)])
        return .failed(result, retryAt: now.addingTimeInterval(configuration.backoff(afterAttempt: attempt).seconds), disabledReason: nil)
    }

    private func finish(_ claim: WebhookClaim, _ step: WebhookStep, holding: Bool) async throws -> Bool {
        let held = try await store.finishWebhookStep(
            endpointID: claim.endpoint.id, claim: claim.claim, step, leaseDuration: holding ? configuration.leaseDuration : nil)
        if !held { logger.notice("a webhook endpoint's claim ran out; another worker has it", metadata: ["endpoint": .string(claim.endpoint.id)]) }
        return held
    }
}
