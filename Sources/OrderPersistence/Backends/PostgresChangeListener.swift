import Foundation
import Logging
import PostgresNIO

extension PostgresBackend {
    /// How often the listening connection proves it is alive: a silently broken connection (no FIN, such as a network
    /// partition) is noticed within this plus ``listenerProbeTimeout``.
    static let listenerProbeInterval = Duration.milliseconds(500)
    static let listenerProbeTimeout = Duration.seconds(1)

    private struct Announcement: Decodable {
        var s: String
        var t: String
        var o: String?
    }

    /// Listens on its own connection for the changes the schema's triggers announce (``ChangeNotificationSchema``),
    /// reconnecting with back-off; reports ``StoreChangeEvent/following`` once
    /// `LISTEN` is in place and ``StoreChangeEvent/interrupted(reason:)`` as soon as the connection fails or stops
    /// answering.
    func followChanges(_ report: @escaping @Sendable (StoreChangeEvent) async -> Void) async throws {
        var backoff = Duration.milliseconds(100)
        while !Task.isCancelled {
            var connection: PostgresConnection?
            do {
                let listening = try await PostgresConnection.connect(configuration: listenerConfiguration, id: -1, logger: logger)
                connection = listening
                try await listening.listen(on: ChangeNotificationSchema.channel) { notifications in
                    await report(.following)
                    backoff = .milliseconds(100)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await Self.probe(listening, clock: self.clock) }
                        group.addTask {
                            for try await notification in notifications {
                                if let event = self.event(from: notification.payload) { await report(event) }
                            }
                            throw ListenerLost(reason: "the notification stream ended")
                        }
                        try await group.next()
                        group.cancelAll()
                    }
                }
            } catch {
                if !Task.isCancelled {
                    await report(.interrupted(reason: Self.message(of: error)))
                    logger.warning("change notifications interrupted; reconnecting", metadata: ["error": .string(Self.message(of: error))])
                }
            }
            try? await connection?.close()
            guard !Task.isCancelled else { return }
            try? await clock.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(5))
        }
    }

    /// The pool's connection settings, named `ordertrack-listener` in `pg_stat_activity` so operators can tell it apart.
    private var listenerConfiguration: PostgresConnection.Configuration {
        var configuration = pool.configuration
        configuration.options.additionalStartupParameters = configuration.options.additionalStartupParameters.map { parameter in
            parameter.0 == "application_name" ? (parameter.0, "ordertrack-listener") : parameter
        }
        return configuration
    }

    private struct ListenerLost: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// Runs `SELECT 1` every ``listenerProbeInterval``; throws when one fails or takes longer than
    /// ``listenerProbeTimeout``.
    private static func probe(_ connection: PostgresConnection, clock: any Clock<Duration>) async throws {
        while true {
            try await clock.sleep(for: listenerProbeInterval)
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    _ = try await connection.query("SELECT 1", logger: Logger(label: "ordertrack.listener")).collect()
                    return true
                }
                group.addTask {
                    try await clock.sleep(for: listenerProbeTimeout)
                    return false
                }
                let answered = try await group.next() ?? false
                group.cancelAll()
                if !answered { throw ListenerLost(reason: "the listening connection did not answer a probe within \(listenerProbeTimeout)") }
            }
        }
    }

    private func event(from payload: String) -> StoreChangeEvent? {
        guard let announcement = try? JSONDecoder().decode(Announcement.self, from: Data(payload.utf8)), announcement.s == schema else {
            return nil
        }
        if let order = announcement.o { return .order(orderTypeIdentifier: announcement.t, orderIdentifier: order) }
        return .orderType(orderTypeIdentifier: announcement.t)
    }
}
